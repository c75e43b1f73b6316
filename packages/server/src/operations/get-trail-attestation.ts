import { getTrailAttestation } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { attestationDetails, attestationDetailsUses } from './attestation-details.ts';
import { requireTrail, requireTrailUses } from './lookup.ts';

/** Newest attestations of one name a read answers: a name attested on every CI run grows without bound. */
const maxNamed = 100;

/** GET /attestations/{org}/{flow_name}/trail/{trail_name}/{attestation_name}: every attestation of the name, oldest first. */
export const getTrailAttestationPlugin = definePlugin({
  operation: getTrailAttestation,
  store: [...requireTrailUses, ...attestationDetailsUses, 'attestationsNamed'],
  async handler({ params, store, apiBase }) {
    const { organization, trail } = await requireTrail(store, params.org, params.flow_name, params.trail_name);
    const named = await store.attestationsNamed(trail.id, params.attestation_name, maxNamed);
    if (!named.length) throw notFound(`Attestation '${params.attestation_name}' not found in trail '${params.trail_name}'`);
    const place = { trailId: trail.id, flow: params.flow_name, trail: params.trail_name };
    return { status: 200, body: await attestationDetails(store, organization.id, place, named, { org: params.org, apiBase }) };
  },
});
