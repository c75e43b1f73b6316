import { attestCustom } from '@trailproof/schema';
import { definePlugin } from '../plugin.ts';
import { storeAttestation, storeAttestationUses } from './attest.ts';
import { attestedBy } from './attest-request.ts';
import { judgeData, judgedCompliant, latestVersionOf } from './custom-types.ts';
import { requireOrganization } from './lookup.ts';

/**
 * POST /attestations/{org}/{flow_name}/trail/{trail_name}/custom: judged off the event loop by the
 * latest version of the type; the judgement (version, its SHA-256, each rule's result) is stored
 * with the data, so the chained record says which version judged it and how.
 */
export const attestCustomPlugin = definePlugin({
  operation: attestCustom,
  store: [...storeAttestationUses, 'findAttestationType', 'attestationTypeVersions'],
  async handler(request) {
    const { params, data, store } = request;
    const organization = await requireOrganization(store, params.org);
    const evaluation = await judgeData(await latestVersionOf(store, organization.id, data.type_name), data.attestation_data);
    const judged = { ...data, evaluation };
    await storeAttestation(store, { ...attestedBy(request), type: `custom:${data.type_name}`, data: judged, compliant: judgedCompliant(evaluation) });
    return { status: 201, body: `custom:${data.type_name} attestation '${data.attestation_name}' was added to trail '${params.trail_name}'` };
  },
});
