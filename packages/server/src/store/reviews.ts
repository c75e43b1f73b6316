/** Reviews added to an approval after it was requested (our extension of the reference). */
import type { ApprovalState, ReviewRecord } from './approvals.ts';
import type { Db } from './database.ts';

/** Adds a review and sets the approval's state; call inside the transaction that computed the state. */
export async function addReview(db: Db, approvalId: number, review: ReviewRecord, state: ApprovalState, at: number): Promise<void> {
  await db.insertInto('reviews').values({ approval_id: approvalId, ...review }).execute();
  await db.updateTable('approvals').set({ state, last_modified_at: at }).where('id', '=', approvalId).execute();
}
