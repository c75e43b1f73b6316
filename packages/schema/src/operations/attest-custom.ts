import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { AttestationName, attestationBody, attestationResponses, commonAttestationFields, TrailPathParams } from './attestation-input.ts';
import { AttestationTypeName } from './attestation-type.ts';

/** `CustomAttestationPayload` (cmd/kosli/attestCustom.go): the type's name and the JSON the type judges. */
export const CustomAttestationInput = Type.Object(
  {
    attestation_name: AttestationName,
    type_name: AttestationTypeName,
    attestation_data: Type.Unknown({ description: 'The JSON document (any JSON value) the type validates and its jq rules judge' }),
    ...commonAttestationFields,
  },
  { $id: 'CustomAttestationInput', additionalProperties: false },
);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/custom */
export const attestCustom = defineOperation({
  id: 'attestCustom',
  summary: 'Attest evidence of a custom type',
  description:
    "Attach a JSON document to a trail, judged by the latest version of the organisation's custom attestation type: compliant " +
    'when it validates against the type schema and every jq rule gives true. The trail and the type must exist.',
  tags: ['Attestations'],
  method: 'POST',
  path: paths.attestCustom,
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: attestationBody(CustomAttestationInput),
  responses: attestationResponses,
  schemas: [CustomAttestationInput],
});
