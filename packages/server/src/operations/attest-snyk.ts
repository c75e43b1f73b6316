import { attestSnyk } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { storeAttestation, storeAttestationUses } from './attest.ts';
import { attestedBy } from './attest-request.ts';

/** Snyk's verdict (docs getting_started/attestations.md): compliant when no run of the scan found a vulnerability of any severity. */
export const snykCompliant = (results: ReadonlyArray<{ high_count: number; medium_count: number; low_count: number }>) =>
  results.every((r) => r.high_count + r.medium_count + r.low_count === 0);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/snyk: the CLI's summary of the SARIF file; the file itself is the attachment. */
export const attestSnykPlugin = definePlugin({
  operation: attestSnyk,
  store: storeAttestationUses,
  async handler(request) {
    const { params, data, store } = request;
    await storeAttestation(store, { ...attestedBy(request), type: 'snyk', data, compliant: snykCompliant(data.snyk_results.results) });
    return { status: 201, body: `snyk attestation '${data.attestation_name}' was added to trail '${params.trail_name}'` };
  },
});
