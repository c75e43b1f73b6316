import { getTrail } from '@trailproof/schema';
import { TrailEvaluator, trailEvaluatorUses } from '../domain/evaluate.ts';
import { countWithin } from '../http/page-bytes.ts';
import { jsonInSlices } from '../http/sliced-json.ts';
import { trailView } from '../http/views/trails.ts';
import { definePlugin } from '../plugin.ts';
import { requireTrail, requireTrailUses } from './lookup.ts';

/**
 * GET /trails/{org}/{flow_name}/{trail_name}: the trail, its compliance with reasons, its events, and
 * a page of its attestations: every one of them in one answer grew without bound, until a large
 * trail could no longer be read at all, while a page is bounded, by count and by its data's bytes.
 */
export const getTrailPlugin = definePlugin({
  operation: getTrail,
  store: [...requireTrailUses, ...trailEvaluatorUses, 'logIndexesOf', 'attestationDataSizes'],
  async handler({ params, query, store, now, apiBase, originalUrl }) {
    const { organization, trail } = await requireTrail(store, params.org, params.flow_name, params.trail_name);
    const offset = query.offset ?? (query.page - 1) * query.per_page;
    // The sizes first, so that no more data is read than the page may carry.
    const sizes = await store.attestationDataSizes(trail.id, { offset, limit: query.per_page });
    const evaluated = await new TrailEvaluator(store, now).evaluate(trail, { offset, limit: countWithin(sizes) });
    const [trails, attestations] = await Promise.all([
      store.logIndexesOf(organization.id, 'trails', [trail.id]),
      store.logIndexesOf(
        organization.id,
        'attestations',
        evaluated.attestations.map((a) => a.id),
      ),
    ]);
    const leaves = { trail: trails.get(trail.id) ?? null, attestations };
    const view = trailView(
      trail,
      evaluated,
      { org: params.org, apiBase },
      { page: query.page, per_page: query.per_page, offset: query.offset, originalUrl },
      leaves,
    );
    // Up to about 4 MiB of text (more only for one attestation bigger than that): written an attestation at a time.
    return { status: 200 as const, json: await jsonInSlices(view, 'attestations') };
  },
});
