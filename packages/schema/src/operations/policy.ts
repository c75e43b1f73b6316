/** Environment policies as the API answers them (the Kosli CLI's `get policy` and `list policies` read these). */
import { Type, type Static } from '@sinclair/typebox';
import { limits } from '../limits.ts';
import { EpochSeconds, LongText, Nullable, PathName, Sha256Hex } from '../shared.ts';

export const PolicyVersion = Type.Object(
  {
    version: Type.Integer({ minimum: 1 }),
    comment: Type.String(),
    timestamp: EpochSeconds(),
    created_by: Type.String({ description: "The id of the token that stored it ('' when unknown)" }),
    policy_yaml: Type.String({ description: 'The YAML as it was uploaded' }),
    sha256: Sha256Hex,
  },
  { $id: 'PolicyVersion', additionalProperties: false },
);

export const Policy = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    type: Type.String(),
    created_at: EpochSeconds(),
    consuming_envs: Type.Array(Type.String(), { description: 'The environments the policy is attached to' }),
    versions: Type.Array(Type.Ref(PolicyVersion), { description: 'Oldest first' }),
  },
  { $id: 'Policy', additionalProperties: false },
);
export type Policy = Static<typeof Policy>;

/** The `payload` part of PUT /policies/{org}, as `kosli create policy` sends it. */
export const PolicyInput = Type.Object(
  {
    name: PathName('Policy name'),
    description: Nullable(LongText()),
    comment: Nullable(LongText()),
    type: Nullable(Type.Literal('env', { description: 'env, the only type' })),
  },
  { $id: 'CreatePolicy', additionalProperties: false },
);

/** The body of attach-policy and detach-policy. */
export const PolicyNames = Type.Object(
  { policy_names: Type.Array(PathName('Policy name'), { minItems: 1, maxItems: limits.smallArray }) },
  { $id: 'PolicyNames', additionalProperties: false },
);

export const policySchemas = [PolicyVersion, Policy];
