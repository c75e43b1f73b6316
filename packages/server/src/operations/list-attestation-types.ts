import { listAttestationTypes } from '@trailproof/schema';
import { attestationTypeView } from '../http/views/attestation-types.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** GET /custom-attestation-types/{org}: the types not archived, by name, each with its versions. */
export const listAttestationTypesPlugin = definePlugin({
  operation: listAttestationTypes,
  store: [...requireOrganizationUses, 'listAttestationTypes', 'attestationTypeVersions'],
  async handler({ params, store }) {
    const organization = await requireOrganization(store, params.org);
    const types = await store.listAttestationTypes(organization.id);
    const versions = await store.attestationTypeVersions(types.map((t) => t.id));
    return { status: 200, body: types.map((t) => attestationTypeView(params.org, t, versions.get(t.id) ?? [])) };
  },
});
