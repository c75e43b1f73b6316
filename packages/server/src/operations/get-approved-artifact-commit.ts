import { getApprovedArtifactCommit } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { requireEnvironment, requireFlow, requireEnvironmentUses, requireFlowUses } from './lookup.ts';

/** Approvals read per step while looking for the newest one that matches. */
const approvalsPerStep = 100;

/** GET /approvals/{org}/{flow_name}/artifact-commit/{env_name}: what older Kosli CLIs ask before reporting an approval. */
export const getApprovedArtifactCommitPlugin = definePlugin({
  operation: getApprovedArtifactCommit,
  store: [...requireFlowUses, ...requireEnvironmentUses, 'getSnapshot', 'approvalsOfArtifacts', 'attestationsOfFingerprints', 'getTrailById'],
  async handler({ params, store }) {
    const { organization, flow } = await requireFlow(store, params.org, params.flow_name);
    const { environment } = await requireEnvironment(store, params.org, params.env_name);
    const running = [...new Set((await store.getSnapshot(environment.id, -1))?.artifacts.map((a) => a.fingerprint))];
    for (let below: number | null = null; running.length; ) {
      // Only approvals of what runs, for this environment or any: their state needs their reviews, read with them.
      const approvals = await store.approvalsOfArtifacts(flow.id, running, environment.name, below, approvalsPerStep);
      const approved = approvals.find((a) => a.state === 'APPROVED');
      if (approved) {
        // The artifact's own commit (its trail's), else the newest commit the approval covers.
        const [attested] = await store.attestationsOfFingerprints(organization.id, [approved.target_artifact]);
        const trail = attested ? await store.getTrailById(attested.trailId) : undefined;
        const sha1 = trail?.gitCommitInfo?.sha1;
        return { status: 200, body: { commit_sha: typeof sha1 === 'string' ? sha1 : (approved.src_commit_list[0] ?? null) } };
      }
      if (approvals.length < approvalsPerStep) break;
      below = approvals.at(-1)!.release_number;
    }
    return { status: 200, body: { commit_sha: null } };
  },
});
