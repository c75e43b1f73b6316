/**
 * A snapshot as Kosli answers `GET /snapshots/{org}/{env}/{expression}` (kosli-dev/cli 71ac0f30
 * getSnapshot.go `Snapshot`, `Artifact`; the OpenAPI's GetSnapshotResponse): each artifact that
 * runs, or exited since the previous snapshot, with the trail that attested it and its compliance.
 */
import { Type } from '@sinclair/typebox';
import { EpochSeconds, Nullable } from '../shared.ts';

export const KosliSnapshotArtifact = Type.Object(
  {
    name: Type.String(),
    fingerprint: Type.String(),
    flow_name: Type.String({ description: 'The flow of the trail it was matched to; empty when no trail attested it' }),
    trail_name: Type.String({ description: 'The trail it was matched to (its latest compliant one, else its latest); empty when none' }),
    git_commit: Type.String({ description: "That trail's git commit; empty when unknown" }),
    commit_url: Type.String({ description: 'Empty when unknown' }),
    compliant: Type.Boolean({
      description:
        'Compliant now: allow-listed in the environment, else passed by every attached policy, else (none attached) vouched for by a compliant trail',
    }),
    verdict_log_index: Nullable(
      Type.Integer({
        minimum: 0,
        description:
          "Trailproof: the leaf, in the organisation's log, of this verdict by the attached policies (the record `assert artifact --environment` would make); null without policies, for an artifact that exited, or where a policy cannot be evaluated",
      }),
    ),
    deployments: Type.Array(Type.Integer(), { description: 'Not kept per artifact; always empty' }),
    creationTimestamp: Type.Array(EpochSeconds(), {
      description: 'One start time per instance (its length is the number of instances): the earliest start, as snapshots keep it',
    }),
    pods: Nullable(
      Type.Record(
        Type.String(),
        Type.Object({ namespace: Type.String(), creationTimestamp: EpochSeconds(), owners: Type.Array(Type.Unknown()) }, { additionalProperties: false }),
        { description: 'K8S: each pod by name; null for other environment types' },
      ),
    ),
    annotation: Type.Object(
      {
        type: Type.String({ description: 'started, scaled, unchanged, or exited (then `now` is 0: it no longer runs)' }),
        was: Type.Integer({ minimum: 0, description: 'Instances in the previous snapshot' }),
        now: Type.Integer({ minimum: 0, description: 'Instances in this one' }),
      },
      { additionalProperties: false },
    ),
    _links: Type.Object({ trail: Type.Optional(Type.Object({ href: Type.String() })) }, { additionalProperties: false }),
  },
  { $id: 'KosliSnapshotArtifact', additionalProperties: false },
);

export const KosliSnapshot = Type.Object(
  {
    index: Type.Integer({ minimum: 1 }),
    timestamp: EpochSeconds({ description: 'Time of the report that made it' }),
    type: Type.String({ description: 'The environment type' }),
    user_id: Type.String({ description: 'The id of the token that reported it; empty for snapshots kept before Trailproof recorded it' }),
    user_name: Type.String({ description: "That token's description and id" }),
    compliant: Type.Boolean({ description: 'Whether every artifact that runs in it is compliant now' }),
    is_latest: Type.Boolean(),
    next_snapshot_timestamp: Nullable(EpochSeconds({ description: 'When the next snapshot replaced it; null for the latest' })),
    artifact_compliance_count: Type.Object(
      { compliant: Type.Integer({ minimum: 0 }), non_compliant: Type.Integer({ minimum: 0 }) },
      { additionalProperties: false },
    ),
    applied_policies: Type.Array(Type.Object({ name: Type.String(), version: Type.Integer(), sha256: Type.String() }), {
      description: 'The policies attached, each its latest version: every running artifact is judged by all of them (none: by provenance)',
    }),
    artifacts: Type.Array(Type.Ref(KosliSnapshotArtifact)),
    _links: Type.Object({ environment: Type.Object({ href: Type.String() }), snapshot: Type.Object({ href: Type.String() }) }, { additionalProperties: false }),
  },
  { $id: 'KosliSnapshot', additionalProperties: false },
);

/** The snapshot part of a Kosli snapshot expression, parsed by the server (a bad one is a 400 naming it). */
export const SnapshotExpression = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
