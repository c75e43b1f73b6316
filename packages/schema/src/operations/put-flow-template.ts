import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { CreateFlowInput, flowSchemas } from './flow.ts';

/** PUT /flows/{org}/template_file */
export const putFlowTemplate = defineOperation({
  id: 'putFlowTemplate',
  summary: 'Create or update flow with template',
  description:
    'Create a flow (201) or update it (200) with a YAML template (version 1). A template that does not validate is a 400 ' +
    'naming the problem and its line. Without template_file the flow keeps its template.',
  tags: ['Flows'],
  method: 'PUT',
  path: paths.putFlowTemplate,
  access: 'write',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({}),
  body: {
    kind: 'multipart',
    data: CreateFlowInput,
    files: { template_file: { description: 'The flow template (YAML, max 10MB)', maxBytes: limits.fileBytes } },
  },
  responses: {
    200: { description: 'Flow updated', schema: Type.String() },
    201: { description: 'Flow created', schema: Type.String() },
    400: { description: 'Invalid input or template', schema: Type.Ref(ErrorBody) },
  },
  schemas: [CreateFlowInput, ...flowSchemas],
});
