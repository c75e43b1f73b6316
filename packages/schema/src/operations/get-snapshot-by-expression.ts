import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { KosliSnapshot, KosliSnapshotArtifact, SnapshotExpression } from './kosli-snapshot.ts';

/** GET /snapshots/{org}/{env_name}/{snapshot_expression} */
export const getSnapshotByExpression = defineOperation({
  id: 'getSnapshotByExpression',
  summary: 'Get snapshot by expression',
  description:
    'One snapshot as `kosli get snapshot` and `kosli assert snapshot` read it, each running artifact matched by fingerprint to the trail ' +
    'that attested it (flow, trail, commit, compliance), and the snapshot `compliant` when every artifact running in it is.',
  tags: ['Environments'],
  method: 'GET',
  path: paths.getSnapshotByExpression,
  access: 'read',
  params: Type.Object({
    org: PathName('Organisation'),
    env_name: PathName('Environment name'),
    snapshot_expression: SnapshotExpression(
      'N (snapshot N; negative counts back from the latest, -1 is the latest), #N, ~N (N behind the latest), ' +
        '@{YYYY-MM-DDTHH:MM:SS} (the snapshot current at that UTC time), @{N.<hours|days|weeks|months>.ago} or @{now}',
    ),
  }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The snapshot', schema: Type.Ref(KosliSnapshot) },
    400: { description: 'Invalid snapshot expression', schema: Type.Ref(ErrorBody) },
    404: { description: 'Environment or snapshot not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [KosliSnapshotArtifact, KosliSnapshot],
});
