import { getTrail } from '@trailproof/schema';
import { TrailEvaluator } from '../evidence/evaluate.ts';
import { trailView } from '../evidence/trail-view.ts';
import { definePlugin } from '../plugin.ts';
import { requireTrail } from './lookup.ts';

/** GET /trails/{org}/{flow_name}/{trail_name}: the trail, every attestation on it, and its compliance with reasons. */
export const getTrailPlugin = definePlugin({
  operation: getTrail,
  async handler({ params, store, now, apiBase }) {
    const { trail } = await requireTrail(store, params.org, params.flow_name, params.trail_name);
    const evaluated = await new TrailEvaluator(store, now).evaluate(trail);
    return { status: 200, body: trailView(trail, evaluated, { org: params.org, apiBase }) };
  },
});
