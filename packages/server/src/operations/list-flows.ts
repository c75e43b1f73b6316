import { listFlows } from '@trailproof/schema';
import { TrailEvaluator } from '../domain/evaluate.ts';
import { flowView } from '../domain/flow-view.ts';
import { pageHeaders } from '../http/links.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization } from './lookup.ts';

/**
 * GET /flows/{org}: the flows by name with their templates, a page at a time: flows are created
 * by any write token (begin trail creates its flow), and every one in one answer grew without
 * bound. The answer stays an array, as the reference's; the `Link` header leads to the others.
 */
export const listFlowsPlugin = definePlugin({
  operation: listFlows,
  async handler({ params, query, store, now, originalUrl }) {
    const organization = await requireOrganization(store, params.org);
    const search = query.search_by_name ? { text: query.search_by_name, caseSensitive: query.case_sensitive !== 'false' } : undefined;
    const flows = await store.listFlowRecords(organization.id, search);
    const evaluator = new TrailEvaluator(store, now);
    const start = (query.page - 1) * query.per_page;
    const body = await Promise.all(flows.slice(start, start + query.per_page).map((flow) => flowView(flow, params.org, evaluator)));
    return { status: 200, body, headers: pageHeaders(originalUrl, query.page, query.per_page, flows.length) };
  },
});
