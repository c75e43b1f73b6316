/** An attestation as `kosli get attestation` and `kosli evaluate trail` read it back: the trail's view of it and its type's own fields. */
import { Type, type Static } from '@sinclair/typebox';
import { AttestationView } from './trail.ts';
import { type AttestationType, JqEvaluator } from './attestation-type.ts';
import { PullRequestEvidence } from './attest-pull-request.ts';
import { SnykResults, SnykRunResult } from './attest-snyk.ts';
import { SonarResults } from './attest-sonar.ts';
import { JiraIssue } from './attest-jira.ts';

/** How a custom type's version judged the data: the schema's errors and each rule's result. */
export const CustomEvaluation = Type.Object(
  {
    type_version: Type.Integer({ minimum: 1 }),
    type_sha256: Type.String({ pattern: '^[a-f0-9]{64}$' }),
    schema_errors: Type.Array(Type.String(), { description: 'Where the data does not match the type schema; empty when it does' }),
    rules: Type.Array(
      Type.Object(
        {
          rule: Type.String(),
          passed: Type.Boolean(),
          output: Type.Union([Type.String(), Type.Null()], { description: "jq's output, cut to 1,000 characters; null when the rule failed to run" }),
          error: Type.Union([Type.String(), Type.Null()], { description: 'Why the rule gave no verdict (error, time or memory bound); null when it ran' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'CustomEvaluation', additionalProperties: false },
);

export const AttestationDetail = Type.Object(
  {
    ...AttestationView.properties,
    flow_name: Type.String(),
    trail_name: Type.String(),
    html_url: Type.String({ description: 'The trail the attestation is on' }),
    git_provider: Type.Optional(Type.String()),
    pull_requests: Type.Optional(Type.Array(Type.Ref(PullRequestEvidence))),
    type_name: Type.Optional(Type.String()),
    attestation_data: Type.Optional(Type.Unknown()),
    evaluation: Type.Optional(Type.Ref(CustomEvaluation)),
    snyk_results: Type.Optional(Type.Ref(SnykResults)),
    sonar_results: Type.Optional(Type.Ref(SonarResults)),
    jira_results: Type.Optional(Type.Array(Type.Ref(JiraIssue))),
    control: Type.Optional(Type.String({ description: "A decision's control" })),
    reason: Type.Optional(Type.String({ description: "An override's reason" })),
    new_compliance_status: Type.Optional(Type.Boolean()),
    original_attestation_type: Type.Optional(Type.String()),
    overridden_attestation_id: Type.Optional(Type.String({ description: 'The attestation an override overrode' })),
    overridden_compliance: Type.Optional(Type.Boolean({ description: 'Its verdict before the override' })),
    sbom_verification: Type.Optional(
      Type.Object({
        read: Type.Boolean(),
        format: Type.Union([Type.String(), Type.Null()]),
        package_count: Type.Union([Type.Integer(), Type.Null()]),
        reason: Type.Union([Type.String(), Type.Null()]),
        differences: Type.Array(Type.String()),
      }),
    ),
  },
  { $id: 'AttestationDetail', additionalProperties: false },
);

export const AttestationDetails = Type.Object({ data: Type.Array(Type.Ref(AttestationDetail)) }, { $id: 'AttestationDetails', additionalProperties: false });

export const attestationDetailSchemas = [
  JqEvaluator,
  PullRequestEvidence,
  CustomEvaluation,
  SnykRunResult,
  SnykResults,
  SonarResults,
  JiraIssue,
  AttestationDetail,
  AttestationDetails,
];

export type AttestationDetailBody = Static<typeof AttestationDetail>;
export type CustomEvaluationBody = Static<typeof CustomEvaluation>;
export type AttestationTypeBody = Static<typeof AttestationType>;
