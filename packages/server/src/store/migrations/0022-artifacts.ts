import { sql } from 'kysely';
import { type Builder, types } from './builder.ts';

/**
 * Kosli's artifacts (`kosli attest artifact`): the thing built, by its SHA-256 fingerprint, on a
 * trail of a flow. Evidence like attestations: chained, logged, and append-only (the same
 * triggers as migration 0003 and 0005 give the other evidence tables). A fingerprint is reported
 * once per trail. Which attestations an artifact has is not stored: it follows from the rows of
 * both (domain/artifact-binding.ts), so that it holds in either order of arrival without updating
 * evidence. Fingerprints and commits compare bytewise on PostgreSQL (collation "C") so that a
 * prefix (search) is a range of the index on both databases.
 */
export const m022_artifacts: Builder = async (db, dialect) => {
  const t = types(dialect);
  const id = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  const hex = dialect === 'postgres' ? sql`text collate "C"` : 'text';
  await db.schema
    .createTable('artifacts')
    .addColumn('id', t.id, id)
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('flow_id', t.ref, (c) => c.notNull().references('flows.id'))
    .addColumn('trail_id', t.ref, (c) => c.notNull().references('trails.id'))
    .addColumn('fingerprint', hex as any, (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('template_reference_name', 'text', (c) => c.notNull())
    .addColumn('git_commit', hex as any)
    .addColumn('git_commit_info', 'text')
    .addColumn('repo_info', 'text')
    .addColumn('repo_name', 'text')
    .addColumn('build_url', 'text', (c) => c.notNull())
    .addColumn('commit_url', 'text', (c) => c.notNull())
    .addColumn('repo_url', 'text')
    .addColumn('external_urls', 'text')
    .addColumn('annotations', 'text')
    .addColumn('created_by_token', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('artifacts_trail_fingerprint', ['trail_id', 'fingerprint'])
    .execute();
  await db.schema.createIndex('artifacts_org_fingerprint').on('artifacts').columns(['organization_id', 'fingerprint', 'id']).execute();
  await db.schema.createIndex('artifacts_org_commit').on('artifacts').columns(['organization_id', 'git_commit', 'id']).execute();
  await db.schema.createIndex('artifacts_flow_created').on('artifacts').columns(['flow_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('artifacts_org_repo_created').on('artifacts').columns(['organization_id', 'repo_name', 'created_at', 'id']).execute();

  if (dialect === 'postgres') {
    await sql`create trigger artifacts_append_only before update or delete on artifacts for each row execute function trailproof_refuse_change()`.execute(db);
    await sql`create trigger artifacts_no_truncate before truncate on artifacts for each statement execute function trailproof_refuse_change()`.execute(db);
  } else {
    for (const op of ['update', 'delete'] as const) {
      await sql`create trigger ${sql.raw(`artifacts_no_${op}`)} before ${sql.raw(op)} on artifacts begin select raise(abort, ${sql.lit(`evidence is append-only: ${op} on artifacts refused`)}); end`.execute(
        db,
      );
    }
  }
};
