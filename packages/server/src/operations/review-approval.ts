import { reviewApproval } from '@trailproof/schema';
import { addReviewInTurn, addReviewInTurnUses, maxReviews } from '../domain/approval-review.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { approvalBody, approvalBodyUses } from './approval-body.ts';
import { requireFlow, requireFlowUses } from './lookup.ts';

/** PUT /approvals/{org}/{flow_name}/{approval_number}: adds a review and moves the state. */
export const reviewApprovalPlugin = definePlugin({
  operation: reviewApproval,
  store: [...requireFlowUses, ...addReviewInTurnUses.store, ...approvalBodyUses],
  transaction: addReviewInTurnUses.transaction,
  async handler({ params, data, principal, store, now }) {
    const { organization, flow } = await requireFlow(store, params.org, params.flow_name);
    const review = { state: data.state, approved_by: data.approved_by, comment: data.comment ?? '', approval_url: data.approval_url ?? '', timestamp: now };
    const result = await addReviewInTurn(store, flow.id, params.approval_number, review, principal.tokenId);
    if (result.outcome === 'not-found') throw notFound(`Approval ${params.approval_number} not found in flow '${params.flow_name}'`);
    if (result.outcome === 'full') {
      throw new ApiError(422, `Approval ${result.releaseNumber} has ${maxReviews} reviews, the most one approval holds: request a new approval`, {
        approval_number: `has ${maxReviews} reviews already`,
      });
    }
    return { status: 200, body: await approvalBody(store, organization.id, flow.id, result.releaseNumber) };
  },
});
