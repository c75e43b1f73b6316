import { listFlows } from '@trailproof/schema';
import { TrailEvaluator } from '../evidence/evaluate.ts';
import { flowView } from '../evidence/flow-view.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization } from './lookup.ts';

/** GET /flows/{org}: every flow, by name, with its template. */
export const listFlowsPlugin = definePlugin({
  operation: listFlows,
  async handler({ params, query, store, now }) {
    const organization = await requireOrganization(store, params.org);
    const search = query.search_by_name ? { text: query.search_by_name, caseSensitive: query.case_sensitive !== 'false' } : undefined;
    const flows = await store.listFlowRecords(organization.id, search);
    const evaluator = new TrailEvaluator(store, now);
    return { status: 200, body: await Promise.all(flows.map((flow) => flowView(flow, params.org, evaluator))) };
  },
});
