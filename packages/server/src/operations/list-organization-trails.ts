import { listOrganizationTrails } from '@trailproof/schema';
import { TrailEvaluator, trailEvaluatorUses } from '../domain/evaluate.ts';
import { trailSummary } from '../http/views/trails.ts';
import { pageCount, pageLinks } from '../http/links.ts';
import { jsonStreamInSlices } from '../http/sliced-json.ts';
import { definePlugin } from '../plugin.ts';
import type { TrailWithTemplate } from '../store/types.ts';
import { requireFlow, requireFlowUses, requireOrganization } from './lookup.ts';

/**
 * GET /trails/{org}: the trails of all the organisation's flows, newest first, as `kosli list
 * trails` asks for them; `flow_tag` (key=value) keeps the flows with that tag.
 */
export const listOrganizationTrailsPlugin = definePlugin({
  operation: listOrganizationTrails,
  store: [...requireFlowUses, 'listOrganizationTrailPage', 'listFlowRecords', ...trailEvaluatorUses],
  async handler({ params, query, store, now, apiBase, originalUrl }) {
    const found = query.flow ? await requireFlow(store, params.org, query.flow) : undefined;
    const organizationId = found ? found.organization.id : (await requireOrganization(store, params.org)).id;
    const flowId = found ? Number(found.flow.id) : undefined;
    let flowIds: number[] | undefined;
    if (query.flow_tag !== undefined) {
      const [key, ...value] = query.flow_tag.split('=');
      const tagged = (await store.listFlowRecords(organizationId)).filter((f) => f.tags[key!] === value.join('='));
      flowIds = tagged.map((f) => f.id).filter((id) => flowId === undefined || id === flowId);
    }
    const page: { items: TrailWithTemplate[]; total: number } = await store.listOrganizationTrailPage(
      organizationId,
      { flowId, flowIds, fingerprint: query.fingerprint },
      (query.page - 1) * query.per_page,
      query.per_page,
    );
    const evaluated = await new TrailEvaluator(store, now).complianceOf(page.items);
    const data = page.items.map((trail, i) => trailSummary(trail, evaluated[i]!, { org: params.org, apiBase }));
    const totalPages = pageCount(page.total, query.per_page);
    // Up to 100 trails, each with up to 1 MB of user_data: written a trail per turn of the event loop.
    const body = {
      data,
      pagination: { total: page.total, page: query.page, per_page: query.per_page, page_count: totalPages },
      _links: pageLinks(originalUrl, query.page, totalPages),
    };
    return { status: 200 as const, stream: jsonStreamInSlices(body, 'data'), contentType: 'application/json' };
  },
});
