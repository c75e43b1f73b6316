import { getApproval } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { approvalFields } from '../http/views/approvals.ts';
import { requireFlow, requireFlowUses } from './lookup.ts';

/** GET /approvals/{org}/{flow_name}/{approval_number}: -1 is the latest. */
export const getApprovalPlugin = definePlugin({
  operation: getApproval,
  store: [...requireFlowUses, 'getApproval', 'artifactsOfCommits', 'approvalLogIndexes'],
  async handler({ params, store }) {
    const { organization, flow } = await requireFlow(store, params.org, params.flow_name);
    const approval = await store.getApproval(flow.id, params.approval_number);
    if (!approval) throw notFound(`Approval ${params.approval_number} not found in flow '${params.flow_name}'`);
    const [artifacts, leaves] = await Promise.all([
      store.artifactsOfCommits(organization.id, approval.src_commit_list),
      store.approvalLogIndexes(organization.id, [approval.id]),
    ]);
    const src_commit_list = approval.src_commit_list.map((commit_sha) => ({ commit_sha, artifact_fingerprints: artifacts.get(commit_sha) ?? [] }));
    return { status: 200, body: { ...approvalFields(approval, leaves.get(approval.id)), src_commit_list } };
  },
});
