import { sql } from 'kysely';
import { type Builder, types } from './builder.ts';

/**
 * Environment policies: a policy by name per organisation, and its versions, each the YAML as it
 * was uploaded with its SHA-256, append-only like evidence (a verdict names the version it read).
 * Flows gain their tags (PATCH /tags), kept as a JSON object as environments keep theirs.
 */
export const m024_policies: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema
    .createTable('policies')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('policies_org_name', ['organization_id', 'name'])
    .execute();
  await db.schema
    .createTable('policy_versions')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('policy_id', t.ref, (c) => c.notNull().references('policies.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull())
    .addColumn('policy_yaml', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('created_by_token', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('policy_versions_policy_version', ['policy_id', 'version'])
    .execute();
  await db.schema
    .alterTable('flows')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  // Versions are written once and never changed or removed, as evidence is (migration 0003's triggers).
  if (dialect === 'postgres') {
    await sql`create trigger policy_versions_append_only before update or delete on policy_versions for each row execute function trailproof_refuse_change()`.execute(
      db,
    );
    await sql`create trigger policy_versions_no_truncate before truncate on policy_versions for each statement execute function trailproof_refuse_change()`.execute(
      db,
    );
  } else {
    for (const op of ['update', 'delete'] as const) {
      await sql`create trigger ${sql.raw(`policy_versions_no_${op}`)} before ${sql.raw(op)} on policy_versions begin select raise(abort, ${sql.lit(`evidence is append-only: ${op} on policy_versions refused`)}); end`.execute(
        db,
      );
    }
  }
};
