import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { CreatedBy, EpochSeconds, ErrorBody, PathName } from '../shared.ts';
import { LogIndex } from './log.ts';

export const SnapshotArtifact = Type.Object(
  {
    name: Type.String(),
    fingerprint: Type.String(),
    instance_count: Type.Integer({ minimum: 1 }),
    creation_timestamp: EpochSeconds({ description: 'The earliest start among its instances' }),
    instances: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      description: 'What identifies each instance (pod, namespace and owner references, task, app...): text, and `owners` as reported',
    }),
    new: Type.Boolean({ description: 'true when it was not running in the previous snapshot (a deployment)' }),
    _links: Type.Object({ trail: Type.Optional(Type.Object({ href: Type.String() })) }, { additionalProperties: false }),
  },
  { $id: 'SnapshotArtifact', additionalProperties: false },
);

export const Snapshot = Type.Object(
  {
    env_name: Type.String(),
    type: Type.String(),
    snapshot_index: Type.Integer({ minimum: 1 }),
    created_at: EpochSeconds({ description: 'Time of the report that made it' }),
    created_by: CreatedBy,
    log_index: LogIndex,
    artifacts: Type.Array(Type.Ref(SnapshotArtifact)),
    _links: Type.Object({ environment: Type.Object({ href: Type.String() }) }, { additionalProperties: false }),
  },
  { $id: 'Snapshot', additionalProperties: false },
);

/** GET /environments/{org}/{env_name}/snapshots/{snapshot_index} */
export const getSnapshot = defineOperation({
  id: 'getSnapshot',
  summary: 'Get snapshot',
  description: 'One immutable snapshot of what ran in an environment; negative indexes count back from the latest (-1 is the latest).',
  tags: ['Environments'],
  method: 'GET',
  path: paths.getSnapshot,
  access: 'read',
  params: Type.Object({
    org: PathName('Organisation'),
    env_name: PathName('Environment name'),
    snapshot_index: Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000, not: { const: 0 } }),
  }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The snapshot', schema: Type.Ref(Snapshot) },
    404: { description: 'Environment or snapshot not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [SnapshotArtifact, Snapshot],
});
