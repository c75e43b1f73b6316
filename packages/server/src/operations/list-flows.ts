import { listFlows } from '@trailproof/schema';
import { TrailEvaluator, trailEvaluatorUses } from '../domain/evaluate.ts';
import { flowView } from '../http/views/flows.ts';
import { pageHeaders } from '../http/links.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/**
 * GET /flows/{org}: the flows by name with their templates, a page at a time: flows are created
 * by any write token (begin trail creates its flow), and every one in one answer grew without
 * bound. The answer stays an array, as the reference's; the `Link` header leads to the others.
 */
export const listFlowsPlugin = definePlugin({
  operation: listFlows,
  store: [...requireOrganizationUses, 'listFlowPage', ...trailEvaluatorUses],
  async handler({ params, query, store, now, originalUrl }) {
    const organization = await requireOrganization(store, params.org);
    const search = query.search_by_name ? { text: query.search_by_name, caseSensitive: query.case_sensitive !== 'false' } : undefined;
    const { items, total } = await store.listFlowPage(organization.id, search, { offset: (query.page - 1) * query.per_page, limit: query.per_page });
    const evaluator = new TrailEvaluator(store, now);
    const body = await Promise.all(items.map((flow) => flowView(flow, params.org, evaluator)));
    return { status: 200, body, headers: pageHeaders(originalUrl, query.page, query.per_page, total) };
  },
});
