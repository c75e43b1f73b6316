import { archiveAttestationType } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** PUT /custom-attestation-types/{org}/{type_name}/archive: the type takes no new attestations; saving it again unarchives it. */
export const archiveAttestationTypePlugin = definePlugin({
  operation: archiveAttestationType,
  store: [...requireOrganizationUses, 'archiveAttestationType'],
  async handler({ params, store, now }) {
    const organization = await requireOrganization(store, params.org);
    if (!(await store.archiveAttestationType(organization.id, params.type_name, now))) {
      throw notFound(`Custom attestation type '${params.type_name}' not found`);
    }
    return { status: 200, body: `attestation-type ${params.type_name} was archived` };
  },
});
