/** Custom attestation types as `kosli create attestation-type` sends them and `kosli get attestation-type` reads them. */
import { Type } from '@sinclair/typebox';
import { limits } from '../limits.ts';
import { CreatedBy, EpochSeconds, LongText, PathName, ShortText } from '../shared.ts';

/** TYPE-NAME: starts with a letter or digit; letters, digits, `.`, `-`, `_` and `~` (createAttestationType.go). */
export const AttestationTypeName = Type.String({ minLength: 1, maxLength: limits.name, pattern: '^[A-Za-z0-9][A-Za-z0-9._~-]*$' });

export const attestationTypeLimits = {
  /** jq rules of one type. */
  rules: 50,
  /** Characters of one jq rule or summary expression: a rule is a line of jq, not a program. */
  ruleLength: 4096,
  /** Bytes of the `type_schema` file. */
  schemaBytes: 256 * 1024,
} as const;

const JqExpression = Type.String({ minLength: 1, maxLength: attestationTypeLimits.ruleLength });

/** `JQEvaluatorPayload`. */
export const JqEvaluator = Type.Object(
  { content_type: Type.Literal('jq'), rules: Type.Array(JqExpression, { maxItems: attestationTypeLimits.rules }) },
  { $id: 'JqEvaluator', additionalProperties: false },
);

/** `SummaryEntry`: one named jq expression shown for each attestation of the type (CLI v2.38). */
const SummaryEntry = Type.Object({ name: ShortText({ minLength: 1 }), expression: JqExpression }, { additionalProperties: false });

/** `CreateAttestationTypePayload`. */
export const CreateAttestationTypeInput = Type.Object(
  {
    name: AttestationTypeName,
    description: Type.Optional(LongText()),
    evaluator: Type.Optional(Type.Union([Type.Ref(JqEvaluator), Type.Null()])),
    summary: Type.Optional(Type.Union([Type.Array(SummaryEntry, { maxItems: attestationTypeLimits.rules }), Type.Null()])),
  },
  { $id: 'CreateAttestationTypeInput', additionalProperties: false },
);

/** One version of a type: every change to it is a new one, and an attestation names the version that judged it. */
export const AttestationTypeVersion = Type.Object(
  {
    version: Type.Integer({ minimum: 1 }),
    timestamp: EpochSeconds(),
    created_by: CreatedBy,
    description: Type.Union([Type.String(), Type.Null()]),
    type_schema: Type.Union([Type.Unknown(), Type.Null()], { description: 'The JSON Schema; null without one' }),
    evaluator: Type.Union([Type.Ref(JqEvaluator), Type.Null()]),
    summary: Type.Union([Type.Array(SummaryEntry), Type.Null()]),
    sha256: Type.String({
      pattern: '^[a-f0-9]{64}$',
      description: 'SHA-256 of the version as it judges (schema, evaluator, summary), which its attestations record',
    }),
  },
  { $id: 'AttestationTypeVersion', additionalProperties: false },
);

/** A type with its versions, oldest first (`?version=N`: that one only). */
export const AttestationType = Type.Object(
  {
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    org: Type.String(),
    archived: Type.Boolean(),
    created_by: CreatedBy,
    created_at: EpochSeconds(),
    last_modified_at: EpochSeconds(),
    versions: Type.Array(Type.Ref(AttestationTypeVersion)),
  },
  { $id: 'AttestationType', additionalProperties: false },
);

export const attestationTypeSchemas = [JqEvaluator, AttestationTypeVersion, AttestationType];

export const AttestationTypeParams = Type.Object({ org: PathName('Organisation'), type_name: AttestationTypeName });
