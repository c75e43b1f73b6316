import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { LongText } from '../shared.ts';
import { AttestationName, attestationResponses, commonAttestationFields, TrailPathParams } from './attestation-input.ts';

/** The type of an attestation an override can name: a built-in type or `custom:<name>` (never another override). */
export const OverriddenType = Type.String({
  maxLength: 160,
  pattern: '^(?:generic|junit|pull_request|snyk|sonar|jira|decision|sbom|custom:[A-Za-z0-9][A-Za-z0-9._~-]*)$',
  description: 'The type of the attestation overridden',
  examples: ['generic', 'custom:coverage'],
});

/** `OverrideAttestationPayload` (cmd/kosli/attestOverride.go, hidden since cli#873): the common fields, why, and the verdict it gives. */
export const OverrideAttestationInput = Type.Object(
  {
    attestation_name: AttestationName,
    reason: LongText({ minLength: 1 }),
    new_compliance_status: Type.Boolean(),
    original_attestation_type: OverriddenType,
    ...commonAttestationFields,
  },
  { $id: 'OverrideAttestationInput', additionalProperties: false },
);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/override: JSON, no attachment. */
export const attestOverride = defineOperation({
  id: 'attestOverride',
  summary: 'Override an attestation',
  description:
    "Give the latest attestation of the name (on the trail, or the artifact it names) a new verdict, with the reason: the override is stored as evidence of its own (type `override:<original type>`) and counts in the original's place; the original stays in the record. The trail and the attestation must exist.",
  tags: ['Attestations'],
  method: 'POST',
  path: paths.attestOverride,
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: { kind: 'json', data: OverrideAttestationInput },
  responses: attestationResponses,
  schemas: [OverrideAttestationInput],
});
