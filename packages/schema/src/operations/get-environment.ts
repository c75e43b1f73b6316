import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { Environment, EnvironmentType } from './list-environments.ts';

/** GET /environments/{org}/{env_name} */
export const getEnvironment = defineOperation({
  id: 'getEnvironment',
  summary: 'Get environment',
  tags: ['Environments'],
  method: 'GET',
  path: paths.getEnvironment,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), env_name: PathName('Environment name') }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The environment', schema: Type.Ref(Environment) },
    404: { description: 'Environment not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [EnvironmentType, Environment],
});
