import { attestDecision } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { storeAttestation, storeAttestationUses } from './attest.ts';
import { attestedBy } from './attest-request.ts';

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/system (`kosli attest decision`): a `decision` on a control, compliant as it says. */
export const attestDecisionPlugin = definePlugin({
  operation: attestDecision,
  store: storeAttestationUses,
  async handler(request) {
    const { params, data, store } = request;
    await storeAttestation(store, { ...attestedBy(request), type: 'decision', data, compliant: data.attestation_data.is_compliant });
    return { status: 201, body: `decision attestation '${data.attestation_name}' on control '${data.control}' was added to trail '${params.trail_name}'` };
  },
});
