import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';

/** GET /approvals/{org}/{flow_name}/artifact-commit/{env_name} */
export const getApprovedArtifactCommit = defineOperation({
  id: 'getApprovedArtifactCommit',
  summary: 'Last approved commit running in an environment',
  description:
    'The git commit of the artifact running in the environment (its latest snapshot) that was last approved for it: the newest APPROVED ' +
    'approval of the flow, for this environment or for any, whose artifact runs there. null when there is none. Kosli CLI releases up ' +
    'to v2.34 ask for it before `report approval` / `request approval --environment` without `--oldest-commit`.',
  tags: ['Approvals'],
  method: 'GET',
  path: paths.getApprovedArtifactCommit,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), flow_name: PathName('Flow name'), env_name: PathName('Environment name') }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: {
      description: 'The commit, or null',
      schema: Type.Object({ commit_sha: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: false }),
    },
    404: { description: 'Flow or environment not found', schema: Type.Ref(ErrorBody) },
  },
});
