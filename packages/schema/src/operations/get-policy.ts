import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { Policy, policySchemas } from './policy.ts';

/** GET /policies/{org}/{policy_name}, read by `kosli get policy`. */
export const getPolicy = defineOperation({
  id: 'getPolicy',
  summary: 'Get environment policy',
  description: 'A policy with every version (oldest first) and the environments it is attached to.',
  tags: ['Policies'],
  method: 'GET',
  path: paths.getPolicy,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), policy_name: PathName('Policy name') }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The policy', schema: Type.Ref(Policy) },
    404: { description: 'No such policy', schema: Type.Ref(ErrorBody) },
  },
  schemas: policySchemas,
});
