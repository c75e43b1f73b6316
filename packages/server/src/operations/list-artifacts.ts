import { listArtifacts } from '@trailproof/schema';
import { artifactStates, artifactStatesUses } from '../domain/artifact-facts.ts';
import { notFound } from '../http/errors.ts';
import { jsonStreamInSlices } from '../http/sliced-json.ts';
import { artifactListItem } from '../http/views/artifacts.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/**
 * GET /artifacts/{org}: a page of the organisation's artifacts, newest first, as `kosli list
 * artifacts` asks for it (a JSON array); `flow_name` wins over `repo_name`, as the CLI sends one.
 */
export const listArtifactsPlugin = definePlugin({
  operation: listArtifacts,
  store: [...requireOrganizationUses, 'findFlow', 'listArtifactPage', 'hasRepository', 'logIndexesOf', ...artifactStatesUses],
  async handler({ params, query, store, now, apiBase }) {
    const organizationId = (await requireOrganization(store, params.org)).id;
    const flow = query.flow_name === undefined ? undefined : await store.findFlow(organizationId, query.flow_name);
    // Kosli's wording, which the CLI prints as it is.
    if (query.flow_name !== undefined && !flow) throw notFound(`Flow named '${query.flow_name}' does not exist for organization '${params.org}'`);
    const filter = flow ? { flowId: Number(flow.id) } : { repoName: query.repo_name };
    const rows = await store.listArtifactPage(organizationId, filter, (query.page - 1) * query.per_page, query.per_page);
    if (!rows.length && filter.repoName !== undefined && !(await store.hasRepository(organizationId, filter.repoName))) {
      throw notFound(`Repo '${filter.repoName}' not found in organization '${params.org}'`);
    }
    const [states, leaves] = await Promise.all([
      artifactStates(store, now, rows),
      store.logIndexesOf(
        organizationId,
        'artifacts',
        rows.map((r) => r.id),
      ),
    ]);
    const items = rows.map((r, i) => artifactListItem(r, states[i]!, { org: params.org, apiBase }, leaves.get(r.id) ?? null));
    // Up to 100 artifacts of about 240 KB each at the contract's bounds: written an artifact per turn of
    // the event loop, the page kept whole (the CLI pages by number).
    return { status: 200 as const, stream: jsonStreamInSlices(items), contentType: 'application/json' };
  },
});
