import { createAttestationType } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { readDefinition } from './custom-types.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** POST /custom-attestation-types/{org}: 201 for a new type, 200 for a new version or none (the same definition again). */
export const createAttestationTypePlugin = definePlugin({
  operation: createAttestationType,
  store: [...requireOrganizationUses, 'saveAttestationType'],
  async handler({ params, data, files, principal, store, now }) {
    const organization = await requireOrganization(store, params.org);
    const definition = await readDefinition(data, files.type_schema);
    const saved = await store.saveAttestationType({ organizationId: organization.id, name: data.name, definition, createdBy: principal.tokenId, at: now });
    if (saved.created) return { status: 201, body: `attestation-type ${data.name} was created (version 1)` };
    const what = saved.changed ? `version ${saved.version} was added` : `is unchanged (version ${saved.version})`;
    return { status: 200, body: `attestation-type ${data.name} ${what}` };
  },
});
