import { listApprovals } from '@trailproof/schema';
import { createdByName } from '../domain/created-by.ts';
import { definePlugin } from '../plugin.ts';
import type { ApprovalRecord } from '../store/types.ts';
import { requireFlow } from './lookup.ts';

/** The fields every approval answer shares; `src_commit_list` is shaped by the caller. */
export function approvalFields({ id: _id, environment, user_data, createdBy, approvals, ...approval }: ApprovalRecord) {
  return {
    ...approval,
    created_by: createdByName(createdBy),
    approvals: approvals.map(({ createdBy: by, ...review }) => ({ ...review, created_by: createdByName(by) })),
    environment,
    ...(user_data === null ? {} : { user_data: user_data as never }),
  };
}

/** GET /approvals/{org}/{flow_name}: newest first. */
export const listApprovalsPlugin = definePlugin({
  operation: listApprovals,
  async handler({ params, query, store }) {
    const { flow } = await requireFlow(store, params.org, params.flow_name);
    const approvals = await store.listApprovals(flow.id, (query.page - 1) * query.per_page, query.per_page);
    return { status: 200, body: approvals.map(approvalFields) };
  },
});
