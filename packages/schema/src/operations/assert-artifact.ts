import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { limits } from '../limits.ts';
import { paths } from '../paths.ts';
import { ErrorBody, Literals, PathName, Sha256Hex } from '../shared.ts';

const Resolution = Type.Object(
  {
    type: Literals(['rule_satisfied', 'rule_not_applicable', 'no_provenance', 'non_compliant_in_trail', 'missing_attestation', 'non_compliant_attestation']),
    context: Type.Object(
      {
        flow_name: Type.Optional(Type.String()),
        trail_name: Type.Optional(Type.String()),
        for_control: Type.Optional(Type.String()),
        exception: Type.Optional(Type.String({ description: 'The exception that waived the rule' })),
        condition: Type.Optional(Type.String({ description: 'The `if` that was false everywhere' })),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'AssertResolution', additionalProperties: false },
);

const RuleEvaluation = Type.Object(
  {
    rule: Type.Object(
      {
        type: Literals(['provenance', 'trail-compliance', 'attestation']),
        definition: Type.Record(Type.String(), Type.Unknown(), { description: 'The rule as the policy states it' }),
      },
      { additionalProperties: false },
    ),
    ignored: Type.Boolean({ description: 'Not required, waived by an exception, or its `if` false' }),
    satisfied: Type.Boolean(),
    resolutions: Type.Array(Type.Ref(Resolution)),
  },
  { $id: 'AssertRuleEvaluation', additionalProperties: false },
);

const PolicyEvaluation = Type.Object(
  {
    policy_name: Type.String(),
    policy_version: Type.Integer({ minimum: 1 }),
    policy_sha256: Type.String({ description: "SHA-256 of the version's YAML as stored" }),
    status: Literals(['COMPLIANT', 'NON-COMPLIANT']),
    rule_evaluations: Type.Array(Type.Ref(RuleEvaluation)),
  },
  { $id: 'AssertPolicyEvaluation', additionalProperties: false },
);

const AssertedAttestationStatus = Type.Object(
  {
    attestation_name: Type.String(),
    attestation_type: Type.Union([Type.String(), Type.Null()]),
    attestation_id: Type.Union([Type.String(), Type.Null()]),
    status: Literals(['MISSING', 'COMPLETE']),
    is_compliant: Type.Boolean(),
    unexpected: Type.Boolean(),
    reason: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

const AssertedFlow = Type.Object(
  {
    flow: Type.String(),
    trail: Type.String(),
    artifact_name: Type.String({ description: "The artifact's template name in the trail" }),
    compliance_status: Type.Object(
      {
        status: Literals(['COMPLIANT', 'NON-COMPLIANT', 'INCOMPLETE']),
        is_compliant: Type.Boolean(),
        attestations_statuses: Type.Array(AssertedAttestationStatus, { description: "The trail's attestations, then the artifact's" }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'AssertedFlow', additionalProperties: false },
);

const AssertArtifactResult = Type.Object(
  {
    compliant: Type.Boolean(),
    scope: Literals(['flow', 'environment', 'policy'], {
      description: "flow: against the templates of the flows the artifact is in; environment: the environment's attached policies; policy: the named policies",
    }),
    environment: Type.Union([Type.String(), Type.Null()]),
    fingerprint: Sha256Hex,
    html_url: Type.String({ description: "The artifact's page in the console (its first flow's)" }),
    policy_evaluations: Type.Array(Type.Ref(PolicyEvaluation), { description: 'In the order asked for (or attached); empty in flow scope' }),
    flows: Type.Array(Type.Ref(AssertedFlow), { description: 'Each trail the artifact was reported in, oldest first' }),
    log_index: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "The verdict's leaf in the organisation's transparency log (policy and environment scopes); null in flow scope",
    }),
  },
  { $id: 'AssertArtifactResult', additionalProperties: false },
);

/** GET /asserts/{org}/fingerprint/{fingerprint}, as `kosli assert artifact` calls it. */
export const assertArtifact = defineOperation({
  id: 'assertArtifact',
  summary: 'Assert artifact',
  description:
    "Judges the artifact with this fingerprint: against the policies attached to an environment (`environment_name`), against named policies (`policy_name`, repeated), or else against the templates of the flows it was reported in; `flow_name` narrows any of them to one flow. In the environment and policy scopes the verdict is also a record in the organisation's log (`log_index`), naming the policy versions and evidence it read, that `trailproof verify-package` re-derives offline.",
  tags: ['Policies'],
  method: 'GET',
  path: paths.assertArtifact,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), fingerprint: Sha256Hex }),
  query: Type.Object({
    flow_name: Type.Optional(PathName('Only the reports in this flow')),
    environment_name: Type.Optional(PathName("Judge by this environment's attached policies")),
    policy_name: Type.Optional(
      Type.Array(PathName('Policy name'), { maxItems: limits.smallArray, description: 'Judge by these policies (repeat for several)' }),
    ),
  }),
  body: undefined,
  responses: {
    200: { description: 'The verdict, compliant or not', schema: Type.Ref(AssertArtifactResult) },
    400: { description: 'Both environment_name and policy_name, or an invalid value', schema: Type.Ref(ErrorBody) },
    404: { description: 'Artifact, environment or policy not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [Resolution, RuleEvaluation, PolicyEvaluation, AssertedFlow, AssertArtifactResult],
});
