import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { PolicyNames } from './policy.ts';

const environmentPolicies = {
  tags: ['Policies'],
  access: 'write' as const,
  params: Type.Object({ org: PathName('Organisation'), env_name: PathName('Environment name') }),
  query: Type.Object({}),
  body: { kind: 'json' as const, data: PolicyNames },
  responses: {
    200: { description: 'Done', schema: Type.String() },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
    404: { description: 'No such environment or policy', schema: Type.Ref(ErrorBody) },
  },
  schemas: [PolicyNames],
};

/** POST /environments/{org}/{env_name}/policies, as `kosli attach-policy` sends it. */
export const attachPolicies = defineOperation({
  id: 'attachPolicies',
  summary: 'Attach policies to environment',
  description: 'Attaches existing policies to the environment (those already attached stay); a new snapshot records the change, as the reference says.',
  method: 'POST',
  path: paths.attachPolicies,
  ...environmentPolicies,
});

/** DELETE /environments/{org}/{env_name}/policies, as `kosli detach-policy` sends it (a JSON body on DELETE). */
export const detachPolicies = defineOperation({
  id: 'detachPolicies',
  summary: 'Detach policies from environment',
  description: 'Detaches the policies from the environment (one not attached is a 400); a new snapshot records the change.',
  method: 'DELETE',
  path: paths.detachPolicies,
  ...environmentPolicies,
});
