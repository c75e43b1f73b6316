import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ShortText } from '../shared.ts';
import { AttestationName, attestationBody, attestationResponses, commonAttestationFields, TrailPathParams } from './attestation-input.ts';

/** `DecisionAttestationPayload` (cmd/kosli/attestDecision.go): the control assessed and the outcome, under `attestation_data` (cli 9158617c). */
export const DecisionAttestationInput = Type.Object(
  {
    attestation_name: AttestationName,
    type_name: Type.Literal('decision', { description: 'The system attestation type; the CLI sends `decision`' }),
    control: ShortText({ minLength: 1, description: 'The control the decision assessed (`RCTL-043`)' }),
    attestation_data: Type.Object({ is_compliant: Type.Boolean() }, { additionalProperties: false }),
    ...commonAttestationFields,
  },
  { $id: 'DecisionAttestationInput', additionalProperties: false },
);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/system */
export const attestDecision = defineOperation({
  id: 'attestDecision',
  summary: 'Attest a decision on a control',
  description:
    'Record whether a control was satisfied (`kosli attest decision`, often after `kosli evaluate trail`): compliant as `attestation_data.is_compliant` says. A trail not begun is begun.',
  tags: ['Attestations'],
  method: 'POST',
  path: paths.attestDecision,
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: attestationBody(DecisionAttestationInput),
  responses: attestationResponses,
  schemas: [DecisionAttestationInput],
});
