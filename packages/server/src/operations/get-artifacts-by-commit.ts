import { getArtifactsByCommit } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { maxArtifactsRead } from '../store/queries/artifact-reads.ts';
import { artifactViews, artifactViewsUses, requireFlowAndTrail, requireFlowAndTrailUses } from './artifact-lookup.ts';

/**
 * GET /artifacts/{org}/{flow_name}/commit_sha/{commit_sha}: every artifact of the flow (or the
 * trail asked for) built from the commit, or from commits starting with the prefix, newest first,
 * as `kosli get artifact flow:commit` reads them.
 */
export const getArtifactsByCommitPlugin = definePlugin({
  operation: getArtifactsByCommit,
  store: [...requireFlowAndTrailUses, 'findFlowArtifacts', ...artifactViewsUses],
  async handler({ params, query, store, now, apiBase }) {
    const { organization, flowId, trailId } = await requireFlowAndTrail(store, params.org, params.flow_name, query.trail);
    const match = { key: 'git_commit' as const, prefix: params.commit_sha, trailId };
    const rows = await store.findFlowArtifacts(organization.id, flowId, match, maxArtifactsRead);
    if (!rows.length) {
      throw notFound(`Artifact with commit '${params.commit_sha}' does not exist in flow '${params.flow_name}' belonging to organization '${params.org}'`);
    }
    return { status: 200, body: await artifactViews(store, now, organization.id, rows, { org: params.org, apiBase }) };
  },
});
