import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { type Builder, types } from './builder.ts';

/**
 * The transparency log: per organisation, the records of its hash chain are the leaves
 * of an RFC 9162 Merkle tree, in chain order (leaf index = seq - 1, leaf = the record's text as
 * UTF-8). Stored: every complete subtree's hash as it completes (`log_subtrees`, level 0 being
 * the leaf hashes), each tree's right edge (`log_trees`: size and frontier hashes), the signed
 * checkpoints (`log_checkpoints`) and the signing key with the log's origin (`log_signing`).
 * The records already chained are made leaves here, a page at a time.
 */
export const m017_transparency_log: Builder = async (db, dialect) => {
  const t = types(dialect);
  let subtrees = db.schema
    .createTable('log_subtrees')
    .addColumn('organization_id', t.ref, (c) => c.notNull())
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('idx', t.ref, (c) => c.notNull())
    .addColumn('hash', t.bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint('log_subtrees_pk', ['organization_id', 'level', 'idx']);
  // Rows kept in key order: a proof's hashes are found by key only.
  if (dialect === 'sqlite') subtrees = subtrees.modifyEnd(sql`without rowid`);
  await subtrees.execute();
  await db.schema
    .createTable('log_trees')
    .addColumn('organization_id', t.ref, (c) => c.primaryKey().references('organizations.id'))
    .addColumn('size', t.ref, (c) => c.notNull())
    .addColumn('frontier', t.bytes, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('log_checkpoints')
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('tree_size', t.ref, (c) => c.notNull())
    .addColumn('root_hash', t.bytes, (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('log_checkpoints_pk', ['organization_id', 'tree_size'])
    .execute();
  await db.schema
    .createTable('log_signing')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('signer_key', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  // The leaf of a piece of evidence, found from the row its record names (the `log_index` the API shows).
  if (dialect === 'postgres') {
    await sql`create index evidence_log_ref on evidence_log ((record::jsonb #>> '{ref,table}'), ((record::jsonb #>> '{ref,id}')::bigint))`.execute(db);
  } else {
    await sql`create index evidence_log_ref on evidence_log (json_extract(record, '$.ref.table'), json_extract(record, '$.ref.id'))`.execute(db);
  }

  for (const table of ['log_subtrees', 'log_checkpoints']) {
    if (dialect === 'postgres') {
      // trailproof_refuse_change() comes from migration 0003.
      await sql`create trigger ${sql.raw(`${table}_append_only`)} before update or delete on ${sql.table(table)} for each row execute function trailproof_refuse_change()`.execute(
        db,
      );
    } else {
      for (const op of ['update', 'delete'] as const) {
        await sql`create trigger ${sql.raw(`${table}_no_${op}`)} before ${sql.raw(op)} on ${sql.table(table)} begin select raise(abort, ${sql.lit(`evidence is append-only: ${op} on ${table} refused`)}); end`.execute(
          db,
        );
      }
    }
  }
  await backfill(db as Kysely<any>, dialect === 'postgres' ? 2000 : 4000);
};

/** Every organisation's records become its leaves, read and written a page at a time. */
async function backfill(db: Kysely<any>, rowsPerInsert: number): Promise<void> {
  const organizations = await db.selectFrom('evidence_log').select('organization_id').distinct().orderBy('organization_id').execute();
  for (const { organization_id } of organizations) {
    const organizationId = Number(organization_id);
    const range = new FrozenRange();
    let pending: Array<{ organization_id: number; level: number; idx: number; hash: Buffer }> = [];
    const flush = async () => {
      for (let i = 0; i < pending.length; i += rowsPerInsert)
        await db
          .insertInto('log_subtrees')
          .values(pending.slice(i, i + rowsPerInsert))
          .execute();
      pending = [];
    };
    for (let after = 0; ; ) {
      const rows = await db
        .selectFrom('evidence_log')
        .select(['seq', 'record'])
        .where('organization_id', '=', organizationId)
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(5000)
        .execute();
      for (const row of rows) {
        if (Number(row.seq) !== range.size + 1)
          throw new Error(`organisation #${organizationId}: chain record ${range.size + 1} is missing (found ${row.seq}); run trailproof verify`);
        for (const s of range.append(leafHash(Buffer.from(row.record, 'utf8'))))
          pending.push({ organization_id: organizationId, level: s.level, idx: s.index, hash: s.hash });
      }
      await flush();
      if (rows.length < 5000) break;
      after = Number(rows[rows.length - 1]!.seq);
    }
    await db
      .insertInto('log_trees')
      .values({ organization_id: organizationId, size: range.size, frontier: Buffer.concat(range.hashes) })
      .execute();
  }
}

// RFC 9162 hashing and the tree's right edge, frozen here as migrations import no live code.
const leafHash = (leaf: Buffer) =>
  createHash('sha256')
    .update(Buffer.from([0]))
    .update(leaf)
    .digest();
const nodeHash = (left: Buffer, right: Buffer) =>
  createHash('sha256')
    .update(Buffer.from([1]))
    .update(left)
    .update(right)
    .digest();

class FrozenRange {
  size = 0;
  readonly hashes: Buffer[] = [];

  append(hash: Buffer): Array<{ level: number; index: number; hash: Buffer }> {
    let index = this.size;
    const completed = [{ level: 0, index, hash }];
    for (let level = 1, rest = this.size; rest % 2 === 1; level++, rest = Math.floor(rest / 2)) {
      hash = nodeHash(this.hashes.pop()!, hash);
      index = Math.floor(index / 2);
      completed.push({ level, index, hash });
    }
    this.hashes.push(hash);
    this.size += 1;
    return completed;
  }
}
