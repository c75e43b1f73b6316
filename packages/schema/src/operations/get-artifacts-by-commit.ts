import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { Artifact, artifactSchemas, hexPrefix } from './artifact.ts';

/** GET /artifacts/{org}/{flow_name}/commit_sha/{commit_sha} */
export const getArtifactsByCommit = defineOperation({
  id: 'getArtifactsByCommit',
  summary: 'Get artifacts by commit',
  description:
    'Every artifact of the flow (or of one trail of it) built from this commit (or a prefix of at least 7 characters), newest first, ' +
    'as `kosli get artifact flow:commit` reads them: at most 100.',
  tags: ['Artifacts'],
  method: 'GET',
  path: paths.getArtifactsByCommit,
  access: 'read',
  params: Type.Object({
    org: PathName('Organisation'),
    flow_name: PathName('Flow name'),
    commit_sha: hexPrefix(64, 'Git commit SHA, or a prefix of it, lower-case hex'),
  }),
  query: Type.Object({ trail: Type.Optional(PathName('Only the artifacts reported to this trail')) }),
  body: undefined,
  responses: {
    200: { description: 'The artifacts, newest first', schema: Type.Array(Type.Ref(Artifact)) },
    400: { description: 'Not a commit or a prefix of 7 characters or more', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow not found, or no artifact of that commit', schema: Type.Ref(ErrorBody) },
  },
  schemas: artifactSchemas,
});
