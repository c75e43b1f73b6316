import { listTrails } from '@trailproof/schema';
import { TrailEvaluator, trailEvaluatorUses } from '../domain/evaluate.ts';
import { trailSummary } from '../http/views/trails.ts';
import { pageCount, pageLinks } from '../http/links.ts';
import { jsonStreamInSlices } from '../http/sliced-json.ts';
import { definePlugin } from '../plugin.ts';
import { requireFlow, requireFlowUses } from './lookup.ts';

/** GET /trails/{org}/{flow_name}: newest first, each with its compliance status. */
export const listTrailsPlugin = definePlugin({
  operation: listTrails,
  store: [...requireFlowUses, 'listTrailPage', ...trailEvaluatorUses],
  async handler({ params, query, store, now, apiBase, originalUrl }) {
    const { flow } = await requireFlow(store, params.org, params.flow_name);
    const { items, total } = await store.listTrailPage(flow.id, (query.page - 1) * query.per_page, query.per_page);
    const evaluator = new TrailEvaluator(store, now);
    // The page's compliance from its attestations' facts, in one query (a reader thread's, on SQLite).
    const evaluated = await evaluator.complianceOf(items);
    const data = items.map((trail, i) => trailSummary(trail, evaluated[i]!, { org: params.org, apiBase }));
    const totalPages = pageCount(total, query.per_page);
    // Up to 100 trails, each with up to 1 MB of user_data: written a trail per turn of the event loop.
    const body = {
      data,
      pagination: { total, page: query.page, per_page: query.per_page, page_count: totalPages },
      _links: pageLinks(originalUrl, query.page, totalPages),
    };
    return { status: 200 as const, stream: jsonStreamInSlices(body, 'data'), contentType: 'application/json' };
  },
});
