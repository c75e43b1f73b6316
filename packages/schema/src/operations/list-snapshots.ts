import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { EpochSeconds, ErrorBody, pageQuery, PathName } from '../shared.ts';

export const SnapshotListItem = Type.Object(
  {
    index: Type.Integer({ minimum: 1 }),
    from: EpochSeconds({ description: 'When it was made' }),
    to: EpochSeconds({ description: 'When the next snapshot replaced it; 0 for the latest' }),
    duration: Type.Number({ minimum: 0, description: 'Seconds from `from` to `to` (to now for the latest)' }),
    compliant: Type.Boolean({ description: "The environment's state at its report" }),
  },
  { $id: 'SnapshotListItem', additionalProperties: false },
);

/** GET /snapshots/{org}/{env_name} */
export const listSnapshots = defineOperation({
  id: 'listSnapshots',
  summary: 'List snapshots',
  description:
    'The snapshots of an environment as `kosli list snapshots` asks for them, newest first (`reverse=true`: oldest first), each with when ' +
    'it was made and replaced and whether the environment was compliant at its report. Pagination in headers, as for environment events.',
  tags: ['Environments'],
  method: 'GET',
  path: paths.listSnapshots,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), env_name: PathName('Environment name') }),
  query: Type.Object({
    interval: Type.Optional(
      Type.String({
        maxLength: 66,
        description:
          'Snapshot expressions `[expression]..[expression]`, an end left out being NOW (5..10, ~3..NOW, 2..); one alone is that snapshot. ' +
          'An expression is N (snapshot N), ~N (N behind the latest) or NOW (the latest). Empty (as the Kosli CLI sends it by default) is all',
      }),
    ),
    reverse: Type.Boolean({ default: false, description: 'Oldest first' }),
    ...pageQuery({ minimum: 1, maximum: 100, default: 15 }),
  }),
  body: undefined,
  responses: {
    200: { description: 'A page of snapshots', schema: Type.Array(Type.Ref(SnapshotListItem)) },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
    404: { description: 'Environment not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [SnapshotListItem],
});
