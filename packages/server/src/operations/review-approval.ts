import { limits, reviewApproval } from '@trailproof/schema';
import { ApiError, notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { approvalBody, approvalBodyUses } from './approval-body.ts';
import { requireFlow, requireFlowUses } from './lookup.ts';

/**
 * The reviews one approval may hold (as many as a request may bring): every read of the approval
 * answers all of them, and the list answers 100 approvals a page, so more would grow without bound.
 */
const maxReviews = limits.smallArray;

/** PUT /approvals/{org}/{flow_name}/{approval_number}: adds a review and moves the state. */
export const reviewApprovalPlugin = definePlugin({
  operation: reviewApproval,
  store: [...requireFlowUses, 'dialect', ...approvalBodyUses],
  transaction: ['getApproval', 'lockForUpdate', 'addReview'],
  async handler({ params, data, principal, store, now }) {
    const { organization, flow } = await requireFlow(store, params.org, params.flow_name);
    const review = { state: data.state, approved_by: data.approved_by, comment: data.comment ?? '', approval_url: data.approval_url ?? '', timestamp: now };
    const number = await store.transaction(async (tx) => {
      const found = await tx.getApproval(flow.id, params.approval_number);
      if (!found) throw notFound(`Approval ${params.approval_number} not found in flow '${params.flow_name}'`);
      // Reviews of one approval take turns, so that each state is computed from every review before it.
      await tx.lockForUpdate(store.dialect, 'approvals', found.id);
      const approval = (await tx.getApproval(flow.id, found.release_number))!;
      if (approval.approvals.length >= maxReviews) {
        throw new ApiError(422, `Approval ${approval.release_number} has ${maxReviews} reviews, the most one approval holds: request a new approval`, {
          approval_number: `has ${maxReviews} reviews already`,
        });
      }
      await tx.addReview(approval.id, review, principal.tokenId);
      return approval.release_number;
    });
    return { status: 200, body: await approvalBody(store, organization.id, flow.id, number) };
  },
});
