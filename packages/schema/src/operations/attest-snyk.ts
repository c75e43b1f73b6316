import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { limits } from '../limits.ts';
import { paths } from '../paths.ts';
import { LongText, ShortText, Url } from '../shared.ts';
import { AttestationName, attestationBody, attestationResponses, commonAttestationFields, TrailPathParams } from './attestation-input.ts';

const Count = Type.Integer({ minimum: 0, maximum: 1e9 });

/** `snyk.Vulnerability` (internal/snyk/snyk.go): a SARIF result's rule, message, places and Snyk's priority score. */
const SnykVulnerability = Type.Object(
  {
    id: ShortText(),
    message: LongText(),
    locations: Type.Optional(
      Type.Array(Type.Object({ uri: Url(), lines: Type.Optional(ShortText()) }, { additionalProperties: false }), { maxItems: limits.smallArray }),
    ),
    priority_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1e6 })),
  },
  { additionalProperties: false },
);
const Vulnerabilities = Type.Optional(Type.Array(SnykVulnerability, { maxItems: limits.findings }));

/** `snyk.SnykResult`: one SARIF run's results by severity (error/high/critical, warning/medium, info/low/note). */
export const SnykRunResult = Type.Object(
  { high_count: Count, medium_count: Count, low_count: Count, high: Vulnerabilities, medium: Vulnerabilities, low: Vulnerabilities },
  { $id: 'SnykRunResult', additionalProperties: false },
);

/** `snyk.SnykData`: what `ProcessSnykResultFile` makes of the SARIF file. */
export const SnykResults = Type.Object(
  {
    schema_version: Type.Integer({ minimum: 0, maximum: 1000 }),
    tool: Type.Object({ name: ShortText(), version: ShortText() }, { additionalProperties: false }),
    results: Type.Array(Type.Ref(SnykRunResult), { maxItems: limits.smallArray }),
  },
  { $id: 'SnykResults', additionalProperties: false },
);

/** `SnykAttestationPayload` (cmd/kosli/attestSnyk.go). */
export const SnykAttestationInput = Type.Object(
  { attestation_name: AttestationName, snyk_results: Type.Ref(SnykResults), ...commonAttestationFields },
  { $id: 'SnykAttestationInput', additionalProperties: false },
);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/snyk */
export const attestSnyk = defineOperation({
  id: 'attestSnyk',
  summary: 'Attest a Snyk scan',
  description:
    'Attach the summary the CLI makes of a Snyk SARIF file (counts by severity per run), with the SARIF file as the attachment: compliant when no run found a vulnerability. A trail not begun is begun.',
  tags: ['Attestations'],
  method: 'POST',
  path: paths.attestSnyk,
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: attestationBody(SnykAttestationInput),
  responses: attestationResponses,
  schemas: [SnykRunResult, SnykResults, SnykAttestationInput],
});
