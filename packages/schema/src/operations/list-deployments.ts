import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { EpochSeconds, ErrorBody, JsonObject, pageFields, pageQuery, PathName, ShortText } from '../shared.ts';

export const Deployment = Type.Object(
  {
    fingerprint: Type.String({ description: 'SHA-256 of the deployed artifact' }),
    deployed_at: EpochSeconds({ description: 'Time of the report that first saw it running' }),
    artifact_name: Type.String(),
    env_name: Type.String(),
    snapshot_index: Type.Integer({ minimum: 1 }),
    flow_name: Type.Union([Type.String(), Type.Null()], {
      description: "The matched artifact's flow (its trail's); null when no trail reported or attested it",
    }),
    trail_name: Type.Union([Type.String(), Type.Null()], {
      description: 'The trail that reported the artifact, else the one that attested it; null when none did',
    }),
    git_commit: Type.Union([Type.String(), Type.Null()], { description: "The reported artifact's git commit, else its trail's; null when unknown" }),
    _links: JsonObject('Links to the environment snapshot and the trail that attested the artifact'),
  },
  { $id: 'Deployment', additionalProperties: false },
);

/** GET /deployments/{org} */
export const listDeployments = defineOperation({
  id: 'listDeployments',
  summary: 'List deployments',
  description:
    'A filtered, paginated list of the deployments of an organisation, newest first. The window defaults to the 28 days before end_ts, which defaults to now.',
  tags: ['Deployments'],
  method: 'GET',
  path: paths.listDeployments,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({
    ...pageQuery({ minimum: 0, maximum: 50, default: 15 }),
    repo_name: Type.Optional(ShortText({ description: 'Repository name of the trail that attested the artifact' })),
    env_name: Type.Optional(ShortText({ description: 'Environment name' })),
    start_ts: Type.Optional(EpochSeconds({ description: 'Include deployments at or after this time (epoch seconds)' })),
    end_ts: Type.Optional(EpochSeconds({ description: 'Include deployments at or before this time (epoch seconds)' })),
  }),
  body: undefined,
  responses: {
    200: {
      description: 'A page of deployments',
      schema: Type.Object({ ...pageFields, deployments: Type.Array(Type.Ref(Deployment)) }, { $id: 'DeploymentPage', additionalProperties: false }),
    },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
  },
  schemas: [Deployment],
});
