import { attestGeneric } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { storeAttestation, storeAttestationUses } from './attest.ts';

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/generic: compliant as the client says (`is_compliant`). */
export const attestGenericPlugin = definePlugin({
  operation: attestGeneric,
  store: storeAttestationUses,
  async handler({ params, data, files, principal, store, now }) {
    await storeAttestation(store, {
      org: params.org,
      flow: params.flow_name,
      trail: params.trail_name,
      name: data.attestation_name,
      type: 'generic',
      data,
      attachment: files.attachment_file,
      compliant: data.is_compliant,
      createdBy: principal.tokenId,
      now,
    });
    return { status: 201, body: `generic attestation '${data.attestation_name}' was added to trail '${params.trail_name}'` };
  },
});
