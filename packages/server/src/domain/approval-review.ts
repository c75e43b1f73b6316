/**
 * Adding a review to an approval, the one rule the API's review operation and the console's review
 * form share: reviews of one approval take turns (its row locked), so that each state is computed
 * from every review before it, and an approval holds a bounded number of reviews.
 */
import { limits } from '@trailproof/schema';
import type { ReviewRecord, StorePart } from '../store/types.ts';

/**
 * The reviews one approval may hold (as many as a request may bring): every read of the approval
 * answers all of them, and the list answers 100 approvals a page, so more would grow without bound.
 */
export const maxReviews = limits.smallArray;

/** What `addReviewInTurn` uses of the store, for its callers' declarations. */
export const addReviewInTurnUses = { store: ['dialect'], transaction: ['getApproval', 'lockForUpdate', 'addReview'] } as const;
type ReviewStore = StorePart<(typeof addReviewInTurnUses.store)[number], (typeof addReviewInTurnUses.transaction)[number]>;

/** The review's outcome: stored, no such approval, or an approval already full of reviews. */
export type ReviewOutcome = { outcome: 'reviewed'; releaseNumber: number } | { outcome: 'not-found' } | { outcome: 'full'; releaseNumber: number };

/** Stores `review` on approval `number` of the flow; `createdBy` is the token that sent it (none from a person's console session). */
export function addReviewInTurn(store: ReviewStore, flowId: number, number: number, review: ReviewRecord, createdBy: string | null): Promise<ReviewOutcome> {
  return store.transaction(async (tx) => {
    const found = await tx.getApproval(flowId, number);
    if (!found) return { outcome: 'not-found' } as const;
    await tx.lockForUpdate(store.dialect, 'approvals', found.id);
    const approval = (await tx.getApproval(flowId, found.release_number))!;
    if (approval.approvals.length >= maxReviews) return { outcome: 'full', releaseNumber: approval.release_number } as const;
    await tx.addReview(approval.id, review, createdBy);
    return { outcome: 'reviewed', releaseNumber: approval.release_number } as const;
  });
}
