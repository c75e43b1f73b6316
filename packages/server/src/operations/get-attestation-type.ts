import { getAttestationType } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { attestationTypeView } from '../http/views/attestation-types.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** GET /custom-attestation-types/{org}/{type_name}[?version=N]: archived types too, as their attestations name them. */
export const getAttestationTypePlugin = definePlugin({
  operation: getAttestationType,
  store: [...requireOrganizationUses, 'findAttestationType', 'attestationTypeVersions'],
  async handler({ params, query, store }) {
    const organization = await requireOrganization(store, params.org);
    const type = await store.findAttestationType(organization.id, params.type_name);
    if (!type) throw notFound(`Custom attestation type '${params.type_name}' not found`);
    const versions = (await store.attestationTypeVersions([type.id], query.version)).get(type.id)!;
    if (!versions.length) throw notFound(`Custom attestation type '${params.type_name}' has no version ${query.version}`);
    return { status: 200, body: attestationTypeView(params.org, type, versions) };
  },
});
