import { getAttestation } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { attestationDetails, attestationDetailsUses } from './attestation-details.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** GET /attestations/{org}?attestation_id=ID: `{data: [one]}`, as `kosli evaluate trail` reads each attestation of a trail. */
export const getAttestationPlugin = definePlugin({
  operation: getAttestation,
  store: [...requireOrganizationUses, ...attestationDetailsUses, 'attestationOfOrganization'],
  async handler({ params, query, store, apiBase }) {
    const organization = await requireOrganization(store, params.org);
    // Looked up within the organisation: another organisation's id finds nothing.
    const found = await store.attestationOfOrganization(organization.id, Number(query.attestation_id));
    if (!found) throw notFound(`Attestation ${query.attestation_id} not found`);
    const place = { trailId: found.attestation.trailId, flow: found.flow, trail: found.trail };
    const data = await attestationDetails(store, organization.id, place, [found.attestation], { org: params.org, apiBase });
    return { status: 200, body: { data } };
  },
});
