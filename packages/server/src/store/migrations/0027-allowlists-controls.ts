import { sql } from 'kysely';
import { type Builder, types } from './builder.ts';

/**
 * Environment allow-lists (`kosli allow artifact`): a fingerprint allowed in an environment with
 * the reason given, append-only like evidence (an allowance is withdrawn by no API, as in Kosli).
 * Controls (`kosli create control`): an identifier per organisation with its name and
 * description, which `decision` attestations and policies' `for_control` rules name. Snapshots
 * gain the compliance judged when they were made (by the environment's policies then), for the
 * lists; null for the snapshots made before.
 */
export const m027_allowlists_controls: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema
    .createTable('allowlist_entries')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('environment_id', t.ref, (c) => c.notNull().references('environments.id'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('artifact_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created_by_token', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('allowlist_entries_environment_fingerprint').on('allowlist_entries').columns(['environment_id', 'fingerprint']).execute();
  await db.schema
    .createTable('controls')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_by_token', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('controls_org_identifier', ['organization_id', 'identifier'])
    .execute();
  await db.schema.alterTable('snapshots').addColumn('compliant', 'integer').execute();
  if (dialect === 'postgres') {
    await sql`create trigger allowlist_entries_append_only before update or delete on allowlist_entries for each row execute function trailproof_refuse_change()`.execute(
      db,
    );
    await sql`create trigger allowlist_entries_no_truncate before truncate on allowlist_entries for each statement execute function trailproof_refuse_change()`.execute(
      db,
    );
  } else {
    for (const op of ['update', 'delete'] as const) {
      await sql`create trigger ${sql.raw(`allowlist_entries_no_${op}`)} before ${sql.raw(op)} on allowlist_entries begin select raise(abort, ${sql.lit(`evidence is append-only: ${op} on allowlist_entries refused`)}); end`.execute(
        db,
      );
    }
  }
};
