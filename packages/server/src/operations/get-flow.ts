import { getFlow } from '@trailproof/schema';
import { TrailEvaluator, trailEvaluatorUses } from '../domain/evaluate.ts';
import { flowView } from '../http/views/flows.ts';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** GET /flows/{org}/{flow_name} */
export const getFlowPlugin = definePlugin({
  operation: getFlow,
  store: [...requireOrganizationUses, 'getFlowRecord', ...trailEvaluatorUses],
  async handler({ params, store, now }) {
    const organization = await requireOrganization(store, params.org);
    const flow = await store.getFlowRecord(organization.id, params.flow_name);
    if (!flow) throw notFound(`Flow '${params.flow_name}' not found in organization '${params.org}'`);
    return { status: 200, body: await flowView(flow, params.org, new TrailEvaluator(store, now)) };
  },
});
