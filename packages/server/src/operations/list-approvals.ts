import { listApprovals } from '@trailproof/schema';
import { createdByName } from '../domain/created-by.ts';
import { definePlugin } from '../plugin.ts';
import type { ApprovalRecord } from '../store/types.ts';
import { requireFlow, requireFlowUses } from './lookup.ts';

/** Where an approval and its reviews are in the organisation's log (store.approvalLogIndexes). */
export interface ApprovalLeaves {
  approval: number | null;
  reviews: ReadonlyArray<number | null>;
}

/** The fields every approval answer shares; `src_commit_list` is shaped by the caller. */
export function approvalFields({ id: _id, environment, user_data, createdBy, approvals, ...approval }: ApprovalRecord, leaves: ApprovalLeaves | undefined) {
  return {
    ...approval,
    created_by: createdByName(createdBy),
    log_index: leaves?.approval ?? null,
    approvals: approvals.map(({ createdBy: by, ...review }, i) => ({ ...review, created_by: createdByName(by), log_index: leaves?.reviews[i] ?? null })),
    environment,
    ...(user_data === null ? {} : { user_data: user_data as never }),
  };
}

/** GET /approvals/{org}/{flow_name}: newest first. */
export const listApprovalsPlugin = definePlugin({
  operation: listApprovals,
  store: [...requireFlowUses, 'listApprovals', 'approvalLogIndexes'],
  async handler({ params, query, store }) {
    const { organization, flow } = await requireFlow(store, params.org, params.flow_name);
    const approvals = await store.listApprovals(flow.id, (query.page - 1) * query.per_page, query.per_page);
    const leaves = await store.approvalLogIndexes(
      organization.id,
      approvals.map((a) => a.id),
    );
    return { status: 200, body: approvals.map((a) => approvalFields(a, leaves.get(a.id))) };
  },
});
