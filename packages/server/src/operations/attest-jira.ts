import { attestJira } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { storeAttestation, storeAttestationUses } from './attest.ts';
import { attestedBy } from './attest-request.ts';

/**
 * POST /attestations/{org}/{flow_name}/trail/{trail_name}/jira: compliant iff the commit or branch
 * referenced an issue and every issue referenced exists (attestJira.go's long help; its `--assert`
 * fails on either).
 */
export const attestJiraPlugin = definePlugin({
  operation: attestJira,
  store: storeAttestationUses,
  async handler(request) {
    const { params, data, store } = request;
    const compliant = data.jira_results.length > 0 && data.jira_results.every((issue) => issue.issue_exists);
    await storeAttestation(store, { ...attestedBy(request), type: 'jira', data, compliant });
    return { status: 201, body: `jira attestation '${data.attestation_name}' was added to trail '${params.trail_name}'` };
  },
});
