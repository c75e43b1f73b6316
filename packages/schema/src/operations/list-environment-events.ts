import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { EpochSeconds, ErrorBody, Literals, Nullable, pageQuery, PathName } from '../shared.ts';

/** What happened to an artifact between two snapshots of an environment. */
export const environmentEventTypes = ['started', 'scaled', 'exited'] as const;
export type EnvironmentEventType = (typeof environmentEventTypes)[number];

const IntervalEnd = (description: string, fallback: string) => Type.String({ minLength: 1, maxLength: 32, default: fallback, description });
const UnixSeconds = (description: string) =>
  Type.String({ pattern: '^-?[0-9]{1,15}([.][0-9]{1,20})?$', maxLength: 40, description: `${description}. Unix seconds, whole or not (1700000000.5)` });
const endDescription =
  'A snapshot index (1, 2, ...; -1 is the latest, -2 the one before), a Unix timestamp (1719638400, at least 1000000000), ' +
  'NOW, or a time ago: a number and a unit (30mins, 1h, 1hour, 2days, 1w)';

export const EnvironmentEvent = Type.Object(
  {
    type: Literals(environmentEventTypes, { description: 'started, scaled (instance count changed) or exited' }),
    environment_name: Type.String(),
    snapshot_index: Type.Integer({ minimum: 1, description: 'The snapshot in which it happened' }),
    artifact_name: Type.String(),
    sha256: Type.String({ description: 'Artifact fingerprint' }),
    description: Type.String({ description: 'What happened, in words: "2 instances started running (from 0 to 2)."' }),
    reported_at: EpochSeconds({ description: 'Time of the report that made the snapshot' }),
    instances_before: Type.Integer({ minimum: 0 }),
    instances_after: Type.Integer({ minimum: 0 }),
    flows: Type.Array(Type.Object({ flow_name: Type.String(), deployments: Type.Null() }, { additionalProperties: false }), {
      description: 'The flow of the trail that attested the artifact (the one its deployment links to); empty when none did',
    }),
    trail_name: Type.Union([Type.String(), Type.Null()], {
      description: 'The trail the artifact was matched to (the one that reported it, else the one that attested it); null when none',
    }),
    git_commit: Type.Union([Type.String(), Type.Null()], { description: "The matched artifact's git commit, else its trail's; null when unknown" }),
    artifact_compliance: Nullable(
      Type.Boolean({
        description: 'Whether a compliant trail had attested the artifact when it was reported; null for events recorded before Trailproof kept it',
      }),
    ),
    snapshot_compliance: Nullable(
      Type.Boolean({ description: "The environment's state after the report; null for events recorded before Trailproof kept it" }),
    ),
    pipeline: Type.String({
      description:
        "Deprecated in the reference: the flow of the trail that attested the artifact, empty when none did (the Kosli CLI's table reads it as text)",
    }),
    deployments: Type.Null({ description: 'Deprecated in the reference; always null' }),
    code_diff: Type.Null({ description: 'Not kept; always null' }),
    _links: Type.Object(
      {
        environment: Type.Object({ href: Type.String() }),
        snapshot: Type.Object({ href: Type.String() }),
        trail: Type.Optional(Type.Object({ href: Type.String() })),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'EnvironmentEvent', additionalProperties: false },
);

/** GET /environments/{org}/{env_name}/events */
export const listEnvironmentEvents = defineOperation({
  id: 'listEnvironmentEvents',
  summary: 'List environment events',
  description:
    'What started, scaled and exited in an environment, snapshot by snapshot, newest first (`reverse=true`: oldest first), ' +
    'for the snapshots from `start` to `end` (both included). Pagination in headers: `X-Total-Count`, `X-Per-Page`, `X-Current-Page`, ' +
    '`X-Total-Pages`, and `Link` (first, prev, next, last) when there are several pages.',
  tags: ['Environments'],
  method: 'GET',
  path: paths.listEnvironmentEvents,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), env_name: PathName('Environment name') }),
  query: Type.Object({
    start: IntervalEnd(`The first snapshot. ${endDescription}`, '1'),
    end: IntervalEnd(`The last snapshot. ${endDescription}`, 'NOW'),
    interval: Type.Optional(
      Type.String({
        maxLength: 66,
        deprecated: true,
        description:
          'Deprecated: snapshot expressions `[expression]..[expression]` in one value, an end left out being NOW (5..10, ~3..NOW, 2..); ' +
          'one expression alone is that snapshot (NOW, 5). An expression is N (snapshot N), ~N (N behind the latest), NOW (the latest), ' +
          'or one of the forms of start and end. Wins over start, end, start_ts and end_ts; empty (as the Kosli CLI sends it by default) is none',
      }),
    ),
    start_ts: Type.Optional(UnixSeconds('The first snapshot: the first reported at or after this time; wins over start')),
    end_ts: Type.Optional(UnixSeconds('The last snapshot: the last reported at or before this time; wins over end')),
    repo_name: Type.Optional(
      Type.Array(Type.String({ maxLength: limits.name }), {
        maxItems: limits.smallArray,
        description: 'Only events of artifacts attested from these repositories (repeat for several; empty values are ignored)',
      }),
    ),
    reverse: Type.Boolean({ default: false, description: 'Oldest first' }),
    ...pageQuery({ minimum: 1, maximum: 100, default: 15 }),
  }),
  body: undefined,
  responses: {
    200: { description: 'A page of events', schema: Type.Array(Type.Ref(EnvironmentEvent)) },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
    404: { description: 'Environment not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [EnvironmentEvent],
});
