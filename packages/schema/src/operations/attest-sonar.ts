import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { limits } from '../limits.ts';
import { paths } from '../paths.ts';
import { ShortText, Url } from '../shared.ts';
import { AttestationName, attestationBody, attestationResponses, commonAttestationFields, TrailPathParams } from './attestation-input.ts';

/** `sonar.Condition` (internal/sonar/sonar.go): one condition of the quality gate and its status. */
const SonarCondition = Type.Object(
  { metric: ShortText(), errorThreshold: ShortText(), operator: ShortText(), value: Type.Optional(ShortText()), status: ShortText() },
  { additionalProperties: false },
);

/** `sonar.SonarResults`: the scan's task, project and quality gate, as the CLI reads them from SonarQube. */
export const SonarResults = Type.Object(
  {
    serverUrl: Url(),
    taskId: ShortText(),
    status: ShortText(),
    analysedAt: ShortText(),
    revision: ShortText(),
    project: Type.Object({ key: ShortText(), name: Type.Optional(ShortText()), url: Url() }, { additionalProperties: false }),
    branch: Type.Optional(Type.Object({ name: Type.Optional(ShortText()), type: Type.Optional(ShortText()) }, { additionalProperties: false })),
    pullRequest: Type.Optional(ShortText()),
    qualityGate: Type.Optional(
      Type.Object({ status: ShortText(), conditions: Type.Array(SonarCondition, { maxItems: limits.findings }) }, { additionalProperties: false }),
    ),
  },
  { $id: 'SonarResults', additionalProperties: false },
);

/** `SonarAttestationPayload` (cmd/kosli/attestSonar.go). */
export const SonarAttestationInput = Type.Object(
  { attestation_name: AttestationName, sonar_results: Type.Ref(SonarResults), ...commonAttestationFields },
  { $id: 'SonarAttestationInput', additionalProperties: false },
);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/sonar */
export const attestSonar = defineOperation({
  id: 'attestSonar',
  summary: 'Attest a SonarQube scan',
  description: "Attach a SonarQube Server or Cloud scan's results: compliant when its quality gate's status is OK. A trail not begun is begun.",
  tags: ['Attestations'],
  method: 'POST',
  path: paths.attestSonar,
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: attestationBody(SonarAttestationInput),
  responses: attestationResponses,
  schemas: [SonarResults, SonarAttestationInput],
});
