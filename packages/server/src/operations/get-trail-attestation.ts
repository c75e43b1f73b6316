import { getTrailAttestation } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { countWithin } from '../http/page-bytes.ts';
import { definePlugin } from '../plugin.ts';
import { attestationDetails, attestationDetailsUses } from './attestation-details.ts';
import { requireTrail, requireTrailUses } from './lookup.ts';

/** Newest attestations of one name a read answers: a name attested on every CI run grows without bound. */
const maxNamed = 100;

/**
 * GET /attestations/{org}/{flow_name}/trail/{trail_name}/{attestation_name}: the newest attestations
 * of the name, oldest first: at most 100, and no more than 4 MiB of their data (the newest one at
 * least); 100 of 1 MB each were 100 MB in one answer. Older ones are read by id (`attestation_id`).
 */
export const getTrailAttestationPlugin = definePlugin({
  operation: getTrailAttestation,
  store: [...requireTrailUses, ...attestationDetailsUses, 'attestationsNamed', 'attestationDataSizes'],
  async handler({ params, store, apiBase }) {
    const { organization, trail } = await requireTrail(store, params.org, params.flow_name, params.trail_name);
    const sizes = await store.attestationDataSizes(trail.id, { offset: 0, limit: maxNamed, name: params.attestation_name, newestFirst: true });
    const named = sizes.length ? await store.attestationsNamed(trail.id, params.attestation_name, countWithin(sizes)) : [];
    if (!named.length) throw notFound(`Attestation '${params.attestation_name}' not found in trail '${params.trail_name}'`);
    const place = { trailId: trail.id, flow: params.flow_name, trail: params.trail_name };
    return { status: 200, body: await attestationDetails(store, organization.id, place, named, { org: params.org, apiBase }) };
  },
});
