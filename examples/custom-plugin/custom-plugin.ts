/**
 * A third-party plugin: a custom attestation type (code coverage against a minimum) added to a
 * Trailproof server without touching its core. The operation is a contract value (so it is
 * validated and appears in the OpenAPI document); the plugin declares the part of the store its
 * handler uses (here what `storeAttestation` uses, and nothing else), and a flow template can
 * require it as `type: custom:coverage`.
 */
import { Type } from '@sinclair/typebox';
import { AttestationName, attestationBody, attestationResponses, defineOperation, Nullable, Sha256Hex, TrailPathParams, Url } from '@trailproof/schema';
import { definePlugin } from '@trailproof/server';
import { storeAttestation, storeAttestationUses } from '@trailproof/server/plugin-kit';

const Percentage = (description: string) => Type.Number({ minimum: 0, maximum: 100, description });

export const CoverageAttestationInput = Type.Object(
  {
    attestation_name: AttestationName,
    line_coverage: Percentage('Lines covered by the tests, in percent'),
    minimum: Percentage('The least line coverage that passes, in percent'),
    origin_url: Nullable(Url()),
    artifact_fingerprint: Nullable(Sha256Hex),
  },
  { $id: 'CoverageAttestationInput', additionalProperties: false },
);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/coverage */
export const attestCoverage = defineOperation({
  id: 'attestCoverage',
  summary: 'Attest code coverage',
  tags: ['Attestations'],
  method: 'POST',
  path: '/attestations/{org}/{flow_name}/trail/{trail_name}/coverage',
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  // What every attestation takes and answers: data_json, an optional attachment; 201, 400, 404.
  body: attestationBody(CoverageAttestationInput),
  responses: attestationResponses,
  schemas: [CoverageAttestationInput],
});

export const attestCoveragePlugin = definePlugin({
  operation: attestCoverage,
  store: storeAttestationUses,
  async handler({ params, data, files, principal, store, now }) {
    // The same path every attestation takes: trail lookup, content-addressed attachment, hash chain.
    await storeAttestation(store, {
      org: params.org,
      flow: params.flow_name,
      trail: params.trail_name,
      name: data.attestation_name,
      type: 'custom:coverage',
      data,
      attachment: files.attachment_file,
      compliant: data.line_coverage >= data.minimum,
      createdBy: principal.tokenId,
      now,
    });
    return { status: 201, body: `coverage attestation '${data.attestation_name}' was added to trail '${params.trail_name}'` };
  },
});
