import { attestSonar } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { storeAttestation, storeAttestationUses } from './attest.ts';
import { attestedBy } from './attest-request.ts';

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/sonar: compliant iff the quality gate passed (`OK`; `ERROR`, `WARN`, `NONE` or no gate are not). */
export const attestSonarPlugin = definePlugin({
  operation: attestSonar,
  store: storeAttestationUses,
  async handler(request) {
    const { params, data, store } = request;
    await storeAttestation(store, { ...attestedBy(request), type: 'sonar', data, compliant: data.sonar_results.qualityGate?.status === 'OK' });
    return { status: 201, body: `sonar attestation '${data.attestation_name}' was added to trail '${params.trail_name}'` };
  },
});
