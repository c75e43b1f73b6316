/** The get shape of an approval (commits with the artifacts attested from them), shared by the write operations. */
import { notFound } from '../http/errors.ts';
import type { StoreUses } from '../store/types.ts';
import { approvalFields } from '../http/views/approvals.ts';

/** The queries `approvalBody` uses, for a plugin's `store` list. */
export const approvalBodyUses = ['getApproval', 'artifactsOfCommits', 'approvalLogIndexes'] as const;

export { approvalState } from '../store/queries/approvals.ts';

/** Reads an approval back in the get shape. */
export async function approvalBody(store: StoreUses<typeof approvalBodyUses>, organizationId: number, flowId: number, number: number) {
  const approval = await store.getApproval(flowId, number);
  if (!approval) throw notFound(`Approval ${number} not found`);
  const [artifacts, leaves] = await Promise.all([
    store.artifactsOfCommits(organizationId, approval.src_commit_list),
    store.approvalLogIndexes(organizationId, [approval.id]),
  ]);
  const src_commit_list = approval.src_commit_list.map((commit_sha) => ({ commit_sha, artifact_fingerprints: artifacts.get(commit_sha) ?? [] }));
  return { ...approvalFields(approval, leaves.get(approval.id)), src_commit_list };
}
