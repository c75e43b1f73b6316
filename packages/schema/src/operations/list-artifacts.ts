import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { ErrorBody, pageQuery, PathName, ShortText } from '../shared.ts';
import { ArtifactListItem, artifactSchemas } from './artifact.ts';

/** GET /artifacts/{org} */
export const listArtifacts = defineOperation({
  id: 'listArtifacts',
  summary: 'List artifacts',
  description:
    "The organisation's artifacts, newest first, as `kosli list artifacts` asks for them; `flow_name` or `repo_name` (the name the " +
    "artifact's `repo_info` gave) narrows the list. A page is a JSON array, as the reference answers.",
  tags: ['Artifacts'],
  method: 'GET',
  path: paths.listArtifacts,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({
    flow_name: Type.Optional(PathName('Only the artifacts of this flow')),
    repo_name: Type.Optional(ShortText({ minLength: 1, description: 'Only the artifacts of this repository' })),
    ...pageQuery({ minimum: 1, maximum: limits.smallArray, default: 15 }),
  }),
  body: undefined,
  responses: {
    200: { description: 'A page of artifacts', schema: Type.Array(Type.Ref(ArtifactListItem)) },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow or repository not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: artifactSchemas,
});
