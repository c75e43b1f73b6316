import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { ErrorBody, LongText, Nullable, PathName, ShortText } from '../shared.ts';
import { EnvironmentType } from './list-environments.ts';

export const EnvironmentInput = Type.Object(
  {
    name: PathName('Environment name'),
    type: Type.Ref(EnvironmentType),
    description: Nullable(LongText()),
    include_scaling: Nullable(Type.Boolean({ description: 'A change in the number of running instances makes a new snapshot' })),
    require_provenance: Nullable(Type.Boolean({ description: 'Deprecated in the reference; accepted and ignored' })),
    included_environments: Nullable(Type.Array(PathName('Environment name'), { maxItems: limits.smallArray, description: 'Logical environments only' })),
    policies: Nullable(Type.Array(ShortText({ minLength: 1 }), { maxItems: limits.smallArray })),
    tags: Nullable(Type.Record(ShortText({ minLength: 1 }), ShortText(), { maxProperties: limits.objectKeys, description: 'Tag values by key' })),
  },
  { $id: 'CreateEnvironment', additionalProperties: false },
);

/** PUT /environments/{org} */
export const putEnvironment = defineOperation({
  id: 'putEnvironment',
  summary: 'Create or update environment',
  description: 'Create an environment (201) or update it (200). On update, fields left out (or null) keep their current value.',
  tags: ['Environments'],
  method: 'PUT',
  path: paths.putEnvironment,
  access: 'write',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({}),
  body: { kind: 'json', data: EnvironmentInput },
  responses: {
    200: { description: 'Environment updated', schema: Type.String() },
    201: { description: 'Environment created', schema: Type.String() },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
  },
  schemas: [EnvironmentType, EnvironmentInput],
});
