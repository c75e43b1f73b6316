import { requestApproval } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { approvalBody, approvalState, approvalBodyUses } from './approval-body.ts';
import { requireFlow, requireFlowUses } from './lookup.ts';

/**
 * POST /approvals/{org}/{flow_name}: the flow's next release_number. `base_artifact` (the
 * previous approval's target in the flow) and `artifact_name` are fixed when the approval is
 * made: an approval records what was known when it was asked for.
 */
export const requestApprovalPlugin = definePlugin({
  operation: requestApproval,
  store: [...requireFlowUses, 'artifactNameOf', 'deployedNameOf', 'dialect', ...approvalBodyUses],
  transaction: ['lockForUpdate', 'getApproval', 'insertApproval'],
  async handler({ params, data, principal, store, now }) {
    const { organization, flow } = await requireFlow(store, params.org, params.flow_name);
    const reviews = (data.approvals ?? []).map((r) => ({
      state: r.state,
      approved_by: r.approved_by,
      comment: r.comment ?? '',
      approval_url: r.approval_url ?? '',
      timestamp: now,
    }));
    const artifactName =
      (await store.artifactNameOf(organization.id, data.artifact_fingerprint)) ??
      (await store.deployedNameOf(organization.id, data.artifact_fingerprint)) ??
      '';
    const number = await store.transaction(async (tx) => {
      // Approvals of one flow take turns from here: the previous approval and the next number are
      // read and written without another request in between (see lockForUpdate); the unique
      // (flow_id, release_number) constraint backs this up.
      await tx.lockForUpdate(store.dialect, 'flows', flow.id);
      const previous = await tx.getApproval(flow.id, -1);
      return tx.insertApproval({
        flowId: flow.id,
        targetArtifact: data.artifact_fingerprint,
        baseArtifact: previous?.target_artifact ?? '',
        artifactName,
        description: data.description,
        environment: data.environment ?? null,
        srcCommitList: data.src_commit_list,
        userData: data.user_data ?? null,
        state: approvalState(reviews),
        reviews,
        createdBy: principal.tokenId,
        at: now,
      });
    });
    return { status: 201, body: await approvalBody(store, organization.id, flow.id, number) };
  },
});
