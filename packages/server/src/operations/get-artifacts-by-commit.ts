import { getArtifactsByCommit } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { jsonStreamInSlices } from '../http/sliced-json.ts';
import { definePlugin } from '../plugin.ts';
import { artifactViews, artifactViewsUses, findFlowArtifacts, findFlowArtifactsUses } from './artifact-lookup.ts';

/**
 * GET /artifacts/{org}/{flow_name}/commit_sha/{commit_sha}: every artifact of the flow (or the
 * trail asked for) built from the commit, or from commits starting with the prefix, newest first,
 * as `kosli get artifact flow:commit` reads them.
 */
export const getArtifactsByCommitPlugin = definePlugin({
  operation: getArtifactsByCommit,
  store: [...findFlowArtifactsUses, ...artifactViewsUses],
  async handler({ params, query, store, now, apiBase }) {
    const { organization, rows, facts } = await findFlowArtifacts(store, params, {
      key: 'git_commit',
      prefix: params.commit_sha,
      trail: query.trail,
      factsOf: 'all',
    });
    if (!rows.length) {
      throw notFound(`Artifact with commit '${params.commit_sha}' does not exist in flow '${params.flow_name}' belonging to organization '${params.org}'`);
    }
    // Up to 100 artifacts of about 240 KB each: written an artifact per turn of the event loop.
    const views = await artifactViews(store, now, organization.id, rows, { org: params.org, apiBase }, facts);
    return { status: 200 as const, stream: jsonStreamInSlices(views), contentType: 'application/json' };
  },
});
