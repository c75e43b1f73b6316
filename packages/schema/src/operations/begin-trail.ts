import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { ErrorBody, ExternalUrls, GitCommitInfo, LongText, Nullable, PathName, RepoInfo, Url, UserData } from '../shared.ts';

export const CreateTrailInput = Type.Object(
  {
    name: PathName('Trail name'),
    description: Nullable(LongText()),
    git_commit_info: Nullable(Type.Ref(GitCommitInfo)),
    repo_info: Nullable(Type.Ref(RepoInfo)),
    origin_url: Nullable(Url()),
    external_urls: Nullable(Type.Ref(ExternalUrls)),
    user_data: Nullable(Type.Ref(UserData)),
  },
  { $id: 'CreateTrail', additionalProperties: false },
);

/** PUT /trails/{org}/{flow_name} */
export const beginTrail = defineOperation({
  id: 'beginTrail',
  summary: 'Begin trail',
  description:
    'Create a trail in a flow (201), or update it when it exists already (200), with an optional flow template file. ' +
    'The flow is created if it does not exist yet.',
  tags: ['Trails'],
  method: 'PUT',
  path: paths.beginTrail,
  access: 'write',
  params: Type.Object({ org: PathName('Organisation'), flow_name: PathName('Flow name') }),
  query: Type.Object({}),
  body: {
    kind: 'multipart',
    data: CreateTrailInput,
    files: { template_file: { description: 'Optional flow template file (YAML, max 10MB)', maxBytes: limits.fileBytes } },
  },
  responses: {
    200: { description: 'Trail updated', schema: Type.String() },
    201: { description: 'Trail created', schema: Type.String() },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
  },
  schemas: [CreateTrailInput],
});
