/**
 * The leaf index of each piece of evidence the API shows (`log_index`), so that a client can ask
 * for its inclusion proof: found from the rows through the index on the records' `ref` (log.ts).
 */
import { inListChunks, type Db } from '../database.ts';
import { logIndexesOf } from './log.ts';

/** The leaf of the snapshot `snapshotIndex` of an environment; null when it has none. */
export async function snapshotLogIndex(db: Db, organizationId: number, environmentId: number, snapshotIndex: number): Promise<number | null> {
  const row = await db
    .selectFrom('snapshots')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('snapshot_index', '=', snapshotIndex)
    .executeTakeFirst();
  if (!row) return null;
  return (await logIndexesOf(db, organizationId, 'snapshots', [Number(row.id)])).get(Number(row.id)) ?? null;
}

/** Per approval, its leaf and its reviews' leaves (in the order the approval lists them: by id). */
export async function approvalLogIndexes(
  db: Db,
  organizationId: number,
  approvalIds: readonly number[],
): Promise<Map<number, { approval: number | null; reviews: Array<number | null> }>> {
  const out = new Map(approvalIds.map((id) => [id, { approval: null as number | null, reviews: [] as Array<number | null> }]));
  if (!approvalIds.length) return out;
  // Each approval's reviews come in one slice, in id order.
  const slices = await Promise.all(
    inListChunks([...new Set(approvalIds)]).map((chunk) =>
      db.selectFrom('reviews').select(['id', 'approval_id']).where('approval_id', 'in', chunk).orderBy('id').execute(),
    ),
  );
  const reviews = slices.flat();
  const [approvalLeaves, reviewLeaves] = await Promise.all([
    logIndexesOf(db, organizationId, 'approvals', approvalIds),
    logIndexesOf(
      db,
      organizationId,
      'reviews',
      reviews.map((r) => Number(r.id)),
    ),
  ]);
  for (const [id, entry] of out) entry.approval = approvalLeaves.get(id) ?? null;
  for (const r of reviews) out.get(Number(r.approval_id))!.reviews.push(reviewLeaves.get(Number(r.id)) ?? null);
  return out;
}

export const reads = { snapshotLogIndex, approvalLogIndexes };
export const writes = {};
