import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { flowSchemas, LegacyCreateFlowInput } from './flow.ts';

/** PUT /flows/{org} */
export const putFlow = defineOperation({
  id: 'putFlow',
  summary: 'Create or update flow',
  description:
    'Create a flow (201) or update it (200). Fields left out (or null) keep their current value; `template` (a list of ' +
    'attestation names) replaces the flow template, an empty list removes it.',
  tags: ['Flows'],
  method: 'PUT',
  path: paths.putFlow,
  access: 'write',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({}),
  body: { kind: 'json', data: LegacyCreateFlowInput },
  responses: {
    200: { description: 'Flow updated', schema: Type.String() },
    201: { description: 'Flow created', schema: Type.String() },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
  },
  schemas: [LegacyCreateFlowInput, ...flowSchemas],
});
