import { sql } from 'kysely';
import { type Builder, appendOnlyTables, types } from './builder.ts';

/**
 * Tamper evidence: the per-organisation hash chain, and triggers that make evidence rows
 * append-only (the database itself refuses UPDATE and DELETE on them).
 */
export const m003_tamper_evidence: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema
    .createTable('evidence_log')
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('record', 'text', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('evidence_log_pk', ['organization_id', 'seq'])
    .execute();

  if (dialect === 'postgres') {
    await sql`create or replace function trailproof_refuse_change() returns trigger language plpgsql as $$
      begin
        raise exception 'evidence is append-only: % on % refused', tg_op, tg_table_name using errcode = '42501';
      end $$`.execute(db);
  }
  for (const table of appendOnlyTables) {
    const trigger = sql.raw(`${table}_append_only`);
    if (dialect === 'postgres') {
      await sql`create trigger ${trigger} before update or delete on ${sql.table(table)} for each row execute function trailproof_refuse_change()`.execute(db);
    } else {
      for (const op of ['update', 'delete'] as const) {
        const name = sql.raw(`${table}_no_${op}`);
        await sql`create trigger ${name} before ${sql.raw(op)} on ${sql.table(table)} begin select raise(abort, ${sql.lit(`evidence is append-only: ${op} on ${table} refused`)}); end`.execute(
          db,
        );
      }
    }
  }
};

/** Per-day deployment counts (see DeploymentCountsTable), filled from the deployments already stored. */
