import { sql } from 'kysely';
import { type Builder, types } from './builder.ts';

/**
 * The log's subtrees keyed by their place in the order appends complete them (`position`: leaf 0,
 * leaf 1, their parent, leaf 2, ...; see transparency/subtree-positions.ts) instead of by level and
 * index. A batch of appends then writes its subtrees side by side, where the old key put them at
 * one place per level, so a commit writes far fewer pages (bench/results/history-2026.md).
 * Rows are copied with the hash they have: nothing is recomputed, and `trailproof verify` checks them
 * as before. A table already keyed so (this migration forgotten and applied again) is left as it is.
 */
export const m019_log_subtree_positions: Builder = async (db, dialect) => {
  const t = types(dialect);
  const columns =
    dialect === 'postgres'
      ? await sql<{
          name: string;
        }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = 'log_subtrees'`.execute(db)
      : await sql<{ name: string }>`select name from pragma_table_info('log_subtrees')`.execute(db);
  if (columns.rows.some((c) => c.name === 'position')) return;
  let table = db.schema
    .createTable('log_subtrees_by_position')
    .addColumn('organization_id', t.ref, (c) => c.notNull())
    .addColumn('position', t.ref, (c) => c.notNull())
    .addColumn('hash', t.bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint('log_subtrees_position_pk', ['organization_id', 'position']);
  if (dialect === 'sqlite') table = table.modifyEnd(sql`without rowid`);
  await table.execute();
  // position = 2m − popcount(m) + level, where m = (idx + 1)·2^level − 1 is the number of leaves
  // before the subtree's last (frozen here: migrations import no live code); m < 2^52.
  const popcount = sql.raw(Array.from({ length: 52 }, (_, bit) => `((m >> ${bit}) & 1)`).join(' + '));
  await sql`insert into log_subtrees_by_position (organization_id, "position", hash)
    select organization_id, 2 * m - (${popcount}) + level as "position", hash
    from (select organization_id, level, ((idx + 1) << level) - 1 as m, hash from log_subtrees) as old
    order by organization_id, "position"`.execute(db);
  await sql`drop table log_subtrees`.execute(db);
  await sql`alter table log_subtrees_by_position rename to log_subtrees`.execute(db);
  // Append-only as before (migration 0017's triggers went with the old table).
  if (dialect === 'postgres') {
    await sql`create trigger log_subtrees_append_only before update or delete on log_subtrees for each row execute function trailproof_refuse_change()`.execute(
      db,
    );
  } else {
    for (const op of ['update', 'delete'] as const) {
      await sql`create trigger ${sql.raw(`log_subtrees_no_${op}`)} before ${sql.raw(op)} on log_subtrees begin select raise(abort, ${sql.lit(`evidence is append-only: ${op} on log_subtrees refused`)}); end`.execute(
        db,
      );
    }
  }
};
