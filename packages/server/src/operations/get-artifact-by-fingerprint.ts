import { getArtifactByFingerprint } from '@trailproof/schema';
import { badRequest, notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { artifactViews, artifactViewsUses, findFlowArtifacts, findFlowArtifactsUses } from './artifact-lookup.ts';

/**
 * GET /artifacts/{org}/{flow_name}/fingerprint/{fingerprint}: the latest report of the fingerprint
 * in the flow (or the trail asked for), as `kosli get artifact flow@fingerprint` reads it. A prefix
 * must be the start of one fingerprint only: the answer is one artifact.
 */
export const getArtifactByFingerprintPlugin = definePlugin({
  operation: getArtifactByFingerprint,
  store: [...findFlowArtifactsUses, ...artifactViewsUses],
  async handler({ params, query, store, now, apiBase }) {
    const { organization, rows, facts } = await findFlowArtifacts(store, params, {
      key: 'fingerprint',
      prefix: params.fingerprint,
      trail: query.trail,
      factsOf: 'newest of one fingerprint',
    });
    const where = `in flow '${params.flow_name}' belonging to organization '${params.org}'`;
    if (!rows.length) throw notFound(`Artifact with fingerprint '${params.fingerprint}' does not exist ${where}`);
    const fingerprints = new Set(rows.map((r) => r.fingerprint));
    if (fingerprints.size > 1) throw badRequest(`'${params.fingerprint}' is the start of ${fingerprints.size} fingerprints ${where}: give more of it`);
    const [view] = await artifactViews(store, now, organization.id, [rows[0]!], { org: params.org, apiBase }, facts);
    return { status: 200, body: view! };
  },
});
