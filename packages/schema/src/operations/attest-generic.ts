import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { AttestationName, attestationBody, attestationResponses, commonAttestationFields, TrailPathParams } from './attestation-input.ts';

/** A check whose outcome the client decides (a manual test, a scan, a sign-off): Kosli's `GenericAttestationPostInput`. */
export const GenericAttestationInput = Type.Object(
  {
    attestation_name: AttestationName,
    is_compliant: Type.Boolean({ description: 'Whether the check passed' }),
    ...commonAttestationFields,
  },
  { $id: 'GenericAttestationInput', additionalProperties: false },
);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/generic */
export const attestGeneric = defineOperation({
  id: 'attestGeneric',
  summary: 'Attest a generic check',
  description: 'Attach the outcome of any check (`is_compliant`) to a trail, with an optional attachment file. The trail must exist.',
  tags: ['Attestations'],
  method: 'POST',
  path: paths.attestGeneric,
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: attestationBody(GenericAttestationInput),
  responses: attestationResponses,
  schemas: [GenericAttestationInput],
});
