import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { Policy, policySchemas } from './policy.ts';

/** GET /policies/{org}, read by `kosli list policies`. */
export const listPolicies = defineOperation({
  id: 'listPolicies',
  summary: 'List environment policies',
  description: "The organisation's policies by name, each with its versions and the environments it is attached to.",
  tags: ['Policies'],
  method: 'GET',
  path: paths.listPolicies,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The policies', schema: Type.Array(Type.Ref(Policy)) },
    404: { description: 'No such organisation', schema: Type.Ref(ErrorBody) },
  },
  schemas: policySchemas,
});
