import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { EpochSeconds, ErrorBody, PathName } from '../shared.ts';

export const DiffArtifact = Type.Object(
  {
    fingerprint: Type.String(),
    name: Type.String(),
    flow: Type.String({ description: 'The flow of the trail it was matched to; empty when no trail attested it' }),
    commit_url: Type.String({ description: 'Empty when unknown' }),
    git_commit: Type.String({ description: "The matched trail's git commit; empty when unknown" }),
    most_recent_timestamp: EpochSeconds({ description: 'When it started (its earliest instance), in the later snapshot it runs in' }),
    instance_count: Type.Optional(Type.Integer({ minimum: 1, description: 'Instances, for an artifact only in one snapshot or in both alike' })),
    s1_instance_count: Type.Optional(Type.Integer({ minimum: 1, description: 'Instances in the first snapshot, for one that scaled' })),
    s2_instance_count: Type.Optional(Type.Integer({ minimum: 1, description: 'Instances in the second snapshot, for one that scaled' })),
    pods: Type.Optional(Type.Array(Type.String(), { description: 'K8S: the pods that run it' })),
  },
  { $id: 'DiffArtifact', additionalProperties: false },
);

const DiffItem = Type.Object(
  {
    snapshot_id: Type.String({ description: 'The snapshot compared, ENV#N' }),
    artifacts: Type.Array(Type.Ref(DiffArtifact)),
  },
  { additionalProperties: false },
);
const ChangeItem = Type.Object({ artifacts: Type.Array(Type.Ref(DiffArtifact)) }, { additionalProperties: false });

const Snappish = (description: string) => Type.String({ minLength: 1, maxLength: limits.name + 66, description });
const snappishForms = 'ENV (its latest snapshot), ENV#N, ENV~N (N behind the latest), ENV@{YYYY-MM-DDTHH:MM:SS} (UTC), ENV@{N.<hours|days|weeks|months>.ago}';

/** GET /env-diff/{org} */
export const diffSnapshots = defineOperation({
  id: 'diffSnapshots',
  summary: 'Diff snapshots',
  description:
    'What differs between two snapshots, of one environment or of two, as `kosli diff snapshots` reads it: the artifacts only in the first, ' +
    'only in the second, in both with a different number of instances (`changed`), and in both alike (`not-changed`). An artifact is its ' +
    'name and fingerprint, as snapshots compare them.',
  tags: ['Environments'],
  method: 'GET',
  path: paths.diffSnapshots,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({ snappish1: Snappish(`The first snapshot: ${snappishForms}`), snappish2: Snappish(`The second: ${snappishForms}`) }),
  body: undefined,
  responses: {
    200: {
      description: 'The difference',
      schema: Type.Object(
        { snappish1: DiffItem, snappish2: DiffItem, changed: ChangeItem, 'not-changed': ChangeItem },
        { $id: 'SnapshotDiff', additionalProperties: false },
      ),
    },
    400: { description: 'Invalid snappish', schema: Type.Ref(ErrorBody) },
    404: { description: 'Environment or snapshot not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [DiffArtifact],
});
