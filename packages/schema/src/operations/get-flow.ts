import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { Flow, flowSchemas } from './flow.ts';

/** GET /flows/{org}/{flow_name} */
export const getFlow = defineOperation({
  id: 'getFlow',
  summary: 'Get flow',
  description: 'One flow with its template.',
  tags: ['Flows'],
  method: 'GET',
  path: paths.getFlow,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), flow_name: PathName('Flow name') }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The flow', schema: Type.Ref(Flow) },
    404: { description: 'Flow not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: flowSchemas,
});
