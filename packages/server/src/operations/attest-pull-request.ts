import { attestPullRequest } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { storeAttestation, storeAttestationUses } from './attest.ts';
import { attestedBy } from './attest-request.ts';

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/pull_request: compliant iff at least one pull request was found (whatever its state). */
export const attestPullRequestPlugin = definePlugin({
  operation: attestPullRequest,
  store: storeAttestationUses,
  async handler(request) {
    const { params, data, store } = request;
    await storeAttestation(store, { ...attestedBy(request), type: 'pull_request', data, compliant: (data.pull_requests ?? []).length > 0 });
    return { status: 201, body: `${data.git_provider} pull request attestation '${data.attestation_name}' was added to trail '${params.trail_name}'` };
  },
});
