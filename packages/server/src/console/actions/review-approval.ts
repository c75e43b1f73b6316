/**
 * Reviewing an approval from its page: approve or reject, with a comment. The reviewer recorded
 * is the session's holder (the person the provider vouched for, or the token), never a name the
 * form sends.
 */
import { limits } from '@trailproof/schema';
import { addReviewInTurn, maxReviews } from '../../domain/approval-review.ts';
import { ApiError, notFound } from '../../http/errors.ts';
import { requireFlow } from '../../operations/lookup.ts';
import { defineAction } from '../action.ts';
import { orgHref } from '../links.ts';
import { holderName } from '../sessions.ts';

export const reviewApprovalAction = defineAction({
  path: '/:org/flows/:flow/approvals/:number/review',
  role: 'member',
  async run(input) {
    const { store, params, form, holder, now } = input;
    const { flow } = await requireFlow(store, input.org.name, params.flow!);
    const number = /^[1-9]\d{0,8}$/.test(params.number!) ? Number(params.number) : 0;
    const state = form.get('state');
    if (state !== 'APPROVED' && state !== 'UNAPPROVED') throw new ApiError(400, 'A review approves or rejects.', { state: 'must be APPROVED or UNAPPROVED' });
    const comment = (form.get('comment') ?? '').trim();
    if (comment.length > limits.text) throw new ApiError(400, `A comment holds at most ${limits.text} characters.`, { comment: 'too long' });
    const review = { state, approved_by: holderName(holder), comment, approval_url: '', timestamp: now } as const;
    const result = number
      ? await addReviewInTurn(store, flow.id, number, review, holder.kind === 'token' ? holder.tokenId : null)
      : { outcome: 'not-found' as const };
    if (result.outcome === 'not-found') throw notFound(`Flow '${flow.name}' has no approval ${params.number}.`);
    if (result.outcome === 'full') throw new ApiError(422, `Approval ${result.releaseNumber} has ${maxReviews} reviews, the most one approval holds.`);
    return { redirect: orgHref(input, 'flows', flow.name, 'approvals', result.releaseNumber) };
  },
});
