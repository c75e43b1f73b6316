import { attestSystem } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { storeAttestation, storeAttestationUses } from './attest.ts';
import { attestedBy } from './attest-request.ts';
import { judgeSbom } from './sbom-attestation.ts';

/**
 * POST /attestations/{org}/{flow_name}/trail/{trail_name}/system: `kosli attest decision` (a
 * `decision` on a control, compliant as it says) and `kosli attest sbom` (judged by sbom-attestation.ts).
 */
export const attestSystemPlugin = definePlugin({
  operation: attestSystem,
  store: storeAttestationUses,
  async handler(request) {
    const { params, data, store, files } = request;
    const judged =
      data.type_name === 'decision'
        ? { data, compliant: data.attestation_data.is_compliant }
        : await judgeSbom(data.attestation_data, files.attachment_file).then(({ compliant, verification }) => ({
            data: { ...data, sbom_verification: verification },
            compliant,
          }));
    await storeAttestation(store, { ...attestedBy(request), type: data.type_name, ...judged });
    return { status: 201, body: `${data.type_name} attestation '${data.attestation_name}' was added to trail '${params.trail_name}'` };
  },
});
