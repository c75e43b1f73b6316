/**
 * The log's reads that every proof request makes, as prepared statements on SQLite's read
 * connection: the same SQL as store/queries/log.ts, without Kysely's compile and connection
 * steps, which cost several times the lookups themselves. A proof's subtrees are read in one
 * read transaction (each statement on its own takes and drops the file's read lock), and a tree's
 * size is remembered until the next commit. Outside transactions only, as the store's other reads.
 */
import type BetterSqlite3 from './driver.ts';
import type { Queries } from '../types.ts';
import type { LogLeaf } from '../queries/log.ts';
import { rememberTokensUntilChange } from '../remembered.ts';
import { keepUpperSubtrees, keptRun } from '../subtree-cache.ts';
import { consistencyProofPlan, hasPosition, inclusionProofPlan, readProof, rememberRanges, type SubtreeId, subtreePosition } from '../../transparency/index.ts';

export type LogReads = Pick<Queries, 'logSize' | 'logLeaves' | 'inclusionProofOf' | 'consistencyProofOf'>;

/** The reads on `raw`; `version` moves with every commit of another connection (`PRAGMA data_version`). */
export function logReadsOn(raw: BetterSqlite3.Database, version: () => number): LogReads {
  const size = raw.prepare('select size from log_trees where organization_id = ?').pluck();
  const leaf = raw.prepare('select record from evidence_log where organization_id = ? and seq = ?').pluck();
  // `+ 0`: a bound LIMIT would have the statement planned again at each run (open.ts, sqliteDialect).
  const records = raw.prepare('select seq, record from evidence_log where organization_id = ? and seq > ? order by seq limit ? + 0').raw();
  const subtree = raw.prepare('select hash from log_subtrees where organization_id = ? and position = ?').pluck();
  // A level's run is not side by side in position order: its `keptRun` positions by key, in one statement.
  const run = raw.prepare(`select position, hash from log_subtrees where organization_id = ? and position in (${Array(keptRun).fill('?').join(', ')})`).raw();
  const readRun = (organizationId: number, level: number, from: number, to: number): Array<[number, Buffer]> => {
    // A run may reach past any tree's subtrees (and numbers): those are simply not found.
    const indexes = Array.from({ length: to - from }, (_, i) => from + i).filter((index) => hasPosition(level, index));
    const positions = indexes.map((index) => subtreePosition(level, index));
    const found = new Map(run.all(organizationId, ...positions, ...Array(keptRun - positions.length).fill(-1)) as Array<[number, Buffer]>);
    return indexes.flatMap((index, i): Array<[number, Buffer]> => {
      const hash = found.get(positions[i]!);
      return hash ? [[index, hash]] : [];
    });
  };
  const subtrees = keepUpperSubtrees(
    raw.transaction((organizationId: number, ids: readonly SubtreeId[]) =>
      ids.map((id) => {
        const hash = subtree.get(organizationId, subtreePosition(id.level, id.index)) as Buffer | undefined;
        if (!hash) throw new Error(`organisation #${organizationId}: subtree ${id.level}/${id.index} of the log is not stored`);
        return hash;
      }),
    ),
    { readRun },
  );
  const ranges = rememberRanges();
  // Sizes of 0 (no leaves yet) are read each time: undefined is what is not remembered.
  const sizeOf = rememberTokensUntilChange(async (id) => (size.get(Number(id)) as number | undefined) || undefined, version);
  return {
    logSize: async (organizationId) => (await sizeOf(String(organizationId))) ?? 0,
    logLeaves: async (organizationId, fromIndex, limit) => {
      // One leaf (a proof's): by its key. Leaf index = seq - 1, and seqs have no gaps.
      if (limit === 1) {
        const record = leaf.get(organizationId, fromIndex + 1) as string | undefined;
        return record === undefined ? [] : [{ index: fromIndex, leaf: record }];
      }
      const rows = records.all(organizationId, fromIndex, limit) as Array<[number, string]>;
      return rows.map(([seq, record]): LogLeaf => ({ index: seq - 1, leaf: record }));
    },
    inclusionProofOf: (organizationId, index, treeSize) =>
      readProof(inclusionProofPlan(index, treeSize), (ids) => subtrees(organizationId, ids), ranges(organizationId)),
    consistencyProofOf: (organizationId, from, to) => readProof(consistencyProofPlan(from, to), (ids) => subtrees(organizationId, ids), ranges(organizationId)),
  };
}
