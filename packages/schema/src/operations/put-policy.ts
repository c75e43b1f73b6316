import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { PolicyInput } from './policy.ts';

/** PUT /policies/{org}, as `kosli create policy` sends it (multipart: `payload` and `policy_file`). */
export const putPolicy = defineOperation({
  id: 'putPolicy',
  summary: 'Create or update environment policy',
  description:
    'Create a policy (201) or add a version to it (200) from a YAML policy file (schema v1). A file that does not validate is a 400 ' +
    'naming the field and its line. Each version is kept, in the hash chain and the transparency log.',
  tags: ['Policies'],
  method: 'PUT',
  path: paths.putPolicy,
  access: 'write',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({}),
  body: {
    kind: 'multipart',
    dataField: 'payload',
    data: PolicyInput,
    files: { policy_file: { description: 'The policy (YAML, schema v1, max 64KB)', maxBytes: limits.fileBytes } },
  },
  responses: {
    200: { description: 'Policy updated: a new version', schema: Type.String() },
    201: { description: 'Policy created', schema: Type.String() },
    400: { description: 'Invalid input or policy', schema: Type.Ref(ErrorBody) },
  },
  schemas: [PolicyInput],
});
