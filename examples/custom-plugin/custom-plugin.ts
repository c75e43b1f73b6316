/**
 * A third-party plugin: a generic attestation ("this check passed or failed") added to a
 * Trailproof server without touching its core. The operation is a contract value (so it is
 * validated and appears in the OpenAPI document); the handler uses the public store API.
 */
import { Type } from '@sinclair/typebox';
import {
  AttestationName, defineOperation, ErrorBody, LongText, Nullable, Sha256Hex, TrailPathParams, Url,
} from '@trailproof/schema';
import { definePlugin, storeAttestation } from '@trailproof/server';

export const GenericAttestationInput = Type.Object(
  {
    attestation_name: AttestationName,
    is_compliant: Type.Boolean({ description: 'Whether the check passed' }),
    description: Nullable(LongText()),
    origin_url: Nullable(Url()),
    artifact_fingerprint: Nullable(Sha256Hex),
  },
  { $id: 'GenericAttestationInput', additionalProperties: false },
);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/generic */
export const attestGeneric = defineOperation({
  id: 'attestGeneric',
  summary: 'Attest a generic check',
  tags: ['Attestations'],
  method: 'POST',
  path: '/attestations/{org}/{flow_name}/trail/{trail_name}/generic',
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: {
    kind: 'multipart',
    data: GenericAttestationInput,
    files: { attachment_file: { description: 'Optional evidence file (max 10MB)', maxBytes: 10 * 1024 * 1024 } },
  },
  responses: {
    201: { description: 'Attestation created', schema: Type.String() },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow or trail not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [GenericAttestationInput],
});

export const attestGenericPlugin = definePlugin({
  operation: attestGeneric,
  async handler({ params, data, files, store, now }) {
    // The same path every attestation takes: trail lookup, content-addressed attachment, hash chain.
    await storeAttestation(store, {
      org: params.org, flow: params.flow_name, trail: params.trail_name, name: data.attestation_name, type: 'generic', data,
      attachment: files.attachment_file, compliant: data.is_compliant, now,
    });
    return { status: 201, body: `generic attestation '${data.attestation_name}' was added to trail '${params.trail_name}'` };
  },
});
