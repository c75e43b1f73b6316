/**
 * The transparency log's storage: per organisation, the records of its hash chain
 * (chain.ts) are the leaves of an RFC 9162 Merkle tree in chain order. Leaf index = seq - 1;
 * a leaf's bytes are the record's text (canonical JSON) in UTF-8. Every complete subtree's hash
 * is stored as it completes, numbered in that order (`subtreePosition`: a batch's rows are side by
 * side), so a proof reads O(log n) rows by key in one query, and the tree's right edge (size and
 * frontier) is one row, so an append reads one row and writes the new subtrees and that row.
 */
import { sql } from 'kysely';
import { insertChunks, isPostgres, type Db } from '../database.ts';
import { compiledOnce } from '../compiled-once.ts';
import { leafMemory } from '../leaf-memory.ts';
import { keepUpperSubtrees, type ReadSubtrees } from '../subtree-cache.ts';
import {
  CompactRange,
  consistencyProofPlan,
  HASH_SIZE,
  inclusionProofPlan,
  leafHash,
  type RangeHashes,
  readProof,
  rememberRanges,
  type SubtreeId,
  subtreePositions,
  subtreesOf,
} from '../../transparency/index.ts';

/** The tree of an organisation as stored: its size and right edge. */
export interface LogTree {
  size: number;
  frontier: CompactRange;
}

/**
 * Appends an organisation's new chain records as leaves `firstIndex`, `firstIndex + 1`, ...
 * Runs in the transaction that appends them to the chain, after the organisation's lock
 * (chain.ts), so appends of one organisation take turns.
 */
export async function appendLeaves(db: Db, organizationId: number, firstIndex: number, records: readonly string[]): Promise<void> {
  const tree = await logTree(db, organizationId);
  if (tree.size !== firstIndex)
    throw new Error(`organisation #${organizationId}: the log has ${tree.size} leaves, the chain ${firstIndex} records: run trailproof verify`);
  const rows: Array<{ organizationId: number; position: number; hash: Uint8Array }> = [];
  // The subtrees complete in the order they are numbered: the first new one is number subtreesOf(size).
  let position = subtreesOf(tree.size);
  for (const record of records) {
    for (const s of tree.frontier.append(leafHash(Buffer.from(record, 'utf8')))) rows.push({ organizationId, position: position++, hash: s.hash });
  }
  for (const chunk of insertChunks(rows)) await insertSubtrees(db, { rows: chunk });
  const frontier = Buffer.concat(tree.frontier.hashes);
  await (firstIndex === 0 ? insertTree : updateTree)(db, { organizationId, size: tree.frontier.size, frontier });
}

/** The number of leaves of the organisation's tree. */
export async function logSize(db: Db, organizationId: number): Promise<number> {
  const [row] = await selectSize(db, { organizationId });
  return row ? Number(row.size) : 0;
}

/** The organisation's tree as stored (empty when it has no leaves yet). */
export async function logTree(db: Db, organizationId: number): Promise<LogTree> {
  const [row] = await selectTree(db, { organizationId });
  if (!row) return { size: 0, frontier: new CompactRange() };
  const size = Number(row.size);
  const bytes = Buffer.from(row.frontier);
  const hashes = [];
  for (let at = 0; at < bytes.length; at += HASH_SIZE) hashes.push(bytes.subarray(at, at + HASH_SIZE));
  return { size, frontier: new CompactRange(size, hashes) };
}

/** The hashes of complete subtrees, in the order of `ids` (one query); throws when one is not stored. */
export async function subtreeHashes(db: Db, organizationId: number, ids: readonly SubtreeId[]): Promise<Buffer[]> {
  if (!ids.length) return [];
  const positions = subtreePositions(ids);
  const rows = await selectSubtrees(db, { organizationId, positions });
  const byPosition = new Map(rows.map((r) => [Number(r.position), Buffer.from(r.hash)]));
  return ids.map((id, i) => {
    const hash = byPosition.get(positions[i]!);
    if (!hash) throw new Error(`organisation #${organizationId}: subtree ${id.level}/${id.index} of the log is not stored`);
    return hash;
  });
}

/** RFC 9162 inclusion proof of leaf `index` in the organisation's tree of `size` leaves (size ≤ the stored tree's). */
export function inclusionProofOf(db: Db, organizationId: number, index: number, size: number): Promise<Buffer[]> {
  const { read, ranges } = proofReads(db);
  return readProof(inclusionProofPlan(index, size), (ids) => read(organizationId, ids), ranges?.(organizationId));
}

/** RFC 9162 consistency proof from the organisation's tree of `from` leaves to its tree of `to` leaves. */
export function consistencyProofOf(db: Db, organizationId: number, from: number, to: number): Promise<Buffer[]> {
  const { read, ranges } = proofReads(db);
  return readProof(consistencyProofPlan(from, to), (ids) => read(organizationId, ids), ranges?.(organizationId));
}

interface ProofReads {
  read: ReadSubtrees;
  ranges?: (organizationId: number) => RangeHashes;
}

const kept = new WeakMap<Db, ProofReads>();

/**
 * How proofs on `db` read subtrees: with the upper levels and the folded right-edge ranges kept in
 * memory (subtree-cache.ts, `rememberRanges`), except in a transaction, whose reads may include
 * its own writes, which could still be rolled back.
 */
function proofReads(db: Db): ProofReads {
  if (db.isTransaction) return { read: (organizationId, ids) => subtreeHashes(db, organizationId, ids) };
  let reads = kept.get(db);
  if (!reads) kept.set(db, (reads = { read: keepUpperSubtrees((organizationId, ids) => subtreeHashes(db, organizationId, ids)), ranges: rememberRanges() }));
  return reads;
}

/** A leaf of the log: its index and bytes (the chain record's text). */
export interface LogLeaf {
  index: number;
  leaf: string;
}

/** Up to `limit` leaves from `fromIndex` on, in order: the chain's records. */
export async function logLeaves(db: Db, organizationId: number, fromIndex: number, limit: number): Promise<LogLeaf[]> {
  const rows = await selectRecords(db, { organizationId, fromIndex, limit });
  return rows.map((row) => ({ index: Number(row.seq) - 1, leaf: row.record }));
}

/** The rows a chain record can name; trails have one leaf per begin (the latest is returned). */
export type LoggedTable = 'trails' | 'attestations' | 'artifacts' | 'snapshots' | 'approvals' | 'reviews' | 'policy_versions' | 'verdicts';

/** Tables whose rows get their one leaf in the transaction that writes them, so a committed row's leaf never changes. */
const oneLeafTables = new Set<LoggedTable>(['artifacts', 'attestations', 'policy_versions', 'verdicts']);
const leaves = leafMemory(100_000);

/**
 * The leaf index of each of these rows of `table` (the latest leaf naming it), through the index
 * on the record's `ref` (migration 0017); those of one-leaf tables from memory once found (a
 * judged snapshot read asks for hundreds). Rows with no leaf are left out of the map.
 */
export async function logIndexesOf(db: Db, organizationId: number, table: LoggedTable, ids: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const remembered = oneLeafTables.has(table);
  const keyOf = (id: number) => `${organizationId}:${table}:${id}`;
  const wanted = remembered
    ? ids.filter((id) => {
        const leaf = leaves.get(db, keyOf(id));
        if (leaf !== undefined) out.set(id, leaf);
        return leaf === undefined;
      })
    : ids;
  for (let i = 0; i < wanted.length; i += 500) {
    for (const row of await latestLeavesOf(db, { organizationId, table, ids: wanted.slice(i, i + 500) })) {
      const id = Number(row.ref_id);
      out.set(id, Number(row.seq) - 1);
      if (remembered) leaves.remember(db, keyOf(id), Number(row.seq) - 1);
    }
  }
  return out;
}

// Compiled once per dialect and number of ids: every artifact read asks it, and building it anew cost more than its statement.
const latestLeavesOf = compiledOnce((db, v: { organizationId: number; table: LoggedTable; ids: number[] }) => {
  const postgres = isPostgres(db);
  const refTable = postgres ? sql`(record::jsonb #>> '{ref,table}')` : sql`json_extract(record, '$.ref.table')`;
  const refId = postgres ? sql`((record::jsonb #>> '{ref,id}')::bigint)` : sql`json_extract(record, '$.ref.id')`;
  return db
    .selectFrom('evidence_log')
    .select([sql<number>`${refId}`.as('ref_id'), (eb) => eb.fn.max('seq').as('seq')])
    .where('organization_id', '=', v.organizationId)
    .where(sql<boolean>`${refTable} = ${v.table}`)
    .where(sql<boolean>`${refId} in (${sql.join(v.ids)})`)
    .groupBy(sql`${refId}`);
});

const selectSize = compiledOnce((db, v: { organizationId: number }) =>
  db.selectFrom('log_trees').select('size').where('organization_id', '=', v.organizationId),
);
const selectRecords = compiledOnce((db, v: { organizationId: number; fromIndex: number; limit: number }) =>
  db
    .selectFrom('evidence_log')
    .select(['seq', 'record'])
    .where('organization_id', '=', v.organizationId)
    .where('seq', '>', v.fromIndex)
    .orderBy('seq')
    .limit(v.limit),
);
// One statement per number of positions, each found by key.
const selectSubtrees = compiledOnce((db, v: { organizationId: number; positions: number[] }) =>
  db.selectFrom('log_subtrees').select(['position', 'hash']).where('organization_id', '=', v.organizationId).where('position', 'in', v.positions),
);
const selectTree = compiledOnce((db, v: { organizationId: number }) =>
  db.selectFrom('log_trees').select(['size', 'frontier']).where('organization_id', '=', v.organizationId),
);
const insertSubtrees = compiledOnce((db, v: { rows: Array<{ organizationId: number; position: number; hash: Uint8Array }> }) =>
  db.insertInto('log_subtrees').values(v.rows.map((r) => ({ organization_id: r.organizationId, position: r.position, hash: r.hash }))),
);
const insertTree = compiledOnce((db, v: { organizationId: number; size: number; frontier: Uint8Array }) =>
  db.insertInto('log_trees').values({ organization_id: v.organizationId, size: v.size, frontier: v.frontier }),
);
const updateTree = compiledOnce((db, v: { organizationId: number; size: number; frontier: Uint8Array }) =>
  db.updateTable('log_trees').set({ size: v.size, frontier: v.frontier }).where('organization_id', '=', v.organizationId),
);

export const reads = { logTree, logSize, subtreeHashes, inclusionProofOf, consistencyProofOf, logLeaves, logIndexesOf };
/** `appendLeaves` runs inside the chain's append (chain.ts), never on its own. */
export const writes = {};
