import { listApprovals } from '@trailproof/schema';
import { approvalFields } from '../http/views/approvals.ts';
import { definePlugin } from '../plugin.ts';
import { requireFlow, requireFlowUses } from './lookup.ts';

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
