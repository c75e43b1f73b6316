import { sql } from 'kysely';
import { type Builder, types } from './builder.ts';

/**
 * Verdicts of `assert artifact` against environment policies, as evidence: each is the canonical
 * JSON of what was judged (the fingerprint, the scope, each policy's name, version and SHA-256,
 * the log indexes of the records it read, the facts taken from them) and what came of it (the
 * result and the resolutions), chained and logged as a `verdict`. One row per distinct verdict
 * text in an organisation (`verdict_sha256`): asserting again what was judged already, with the
 * same evidence and the same outcome, answers the existing record. Append-only like evidence.
 */
export const m026_verdicts: Builder = async (db, dialect) => {
  const t = types(dialect);
  const id = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('verdicts')
    .addColumn('id', t.id, id)
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('verdict', 'text', (c) => c.notNull())
    .addColumn('verdict_sha256', 'text', (c) => c.notNull())
    .addColumn('compliant', 'integer', (c) => c.notNull())
    .addColumn('created_by_token', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('verdicts_org_sha256', ['organization_id', 'verdict_sha256'])
    .execute();
  await db.schema.createIndex('verdicts_org_fingerprint').on('verdicts').columns(['organization_id', 'fingerprint', 'id']).execute();
  if (dialect === 'postgres') {
    await sql`create trigger verdicts_append_only before update or delete on verdicts for each row execute function trailproof_refuse_change()`.execute(db);
    await sql`create trigger verdicts_no_truncate before truncate on verdicts for each statement execute function trailproof_refuse_change()`.execute(db);
  } else {
    for (const op of ['update', 'delete'] as const) {
      await sql`create trigger ${sql.raw(`verdicts_no_${op}`)} before ${sql.raw(op)} on verdicts begin select raise(abort, ${sql.lit(`evidence is append-only: ${op} on verdicts refused`)}); end`.execute(
        db,
      );
    }
  }
};
