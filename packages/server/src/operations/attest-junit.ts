import { attestJunit } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { storeAttestation, storeAttestationUses } from './attest.ts';

/** A JUnit attestation is compliant when no suite has failures or errors. */
export const junitCompliant = (results: ReadonlyArray<{ failures: number; errors: number }>) => results.every((r) => r.failures === 0 && r.errors === 0);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/junit */
export const attestJunitPlugin = definePlugin({
  operation: attestJunit,
  store: storeAttestationUses,
  async handler({ params, data, files, principal, store, now }) {
    await storeAttestation(store, {
      org: params.org,
      flow: params.flow_name,
      trail: params.trail_name,
      name: data.attestation_name,
      type: 'junit',
      data,
      attachment: files.attachment_file,
      compliant: junitCompliant(data.junit_results),
      createdBy: principal.tokenId,
      now,
    });
    return { status: 201, body: `junit attestation '${data.attestation_name}' was added to trail '${params.trail_name}'` };
  },
});
