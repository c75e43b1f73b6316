/** An artifact as the reads answer it: what `kosli get artifact`, `list artifacts` and `search` read. */
import { Type } from '@sinclair/typebox';
import { CreatedBy, EpochSeconds, GitCommitInfo, Literals, RepoInfo } from '../shared.ts';
import { LogIndex } from './log.ts';

const OrNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** The states Kosli shows an artifact in. */
export const artifactStates = ['COMPLIANT', 'NON-COMPLIANT', 'INCOMPLETE'] as const;

/** A lower-case hex prefix of a digest (fingerprint or commit): at least 7 characters, as short commits are written. */
export const hexPrefix = (max: number, description: string) => Type.String({ pattern: `^[a-f0-9]{7,${max}}$`, minLength: 7, maxLength: max, description });

/** Where an artifact runs or ran: the environment and the snapshot that shows it. */
export const ArtifactEnvironment = Type.Object(
  {
    environment_name: Type.String(),
    snapshot_index: Type.Integer({ minimum: 1, description: 'Running: the latest snapshot; exited: the first snapshot without it' }),
  },
  { $id: 'ArtifactEnvironment', additionalProperties: false },
);

/** One line of an artifact's history, oldest first. */
export const ArtifactEvent = Type.Object(
  {
    event: Type.String({ description: 'What happened, as Kosli words it ("Started running in prod#3 environment")' }),
    type: Literals(['created', 'attested', 'started', 'scaled', 'exited']),
    timestamp: EpochSeconds(),
    environment_name: OrNull(Type.String()),
    snapshot_index: OrNull(Type.Integer({ minimum: 1 })),
  },
  { $id: 'ArtifactEvent', additionalProperties: false },
);

/** The fields every artifact answer has: the reported facts, where it sits, and its state. */
const artifactFields = {
  id: Type.String({ description: 'The artifact (one report of a fingerprint to a trail)' }),
  fingerprint: Type.String(),
  filename: Type.String(),
  flow_name: Type.String(),
  trail_name: Type.String(),
  template_reference_name: OrNull(Type.String({ description: "The artifact's name in the flow's template; null when it names none" })),
  git_commit: Type.String({ description: 'The commit it was built from; empty when none was reported' }),
  git_commit_info: OrNull(Type.Ref(GitCommitInfo)),
  repo_info: OrNull(Type.Ref(RepoInfo)),
  commit_url: Type.String(),
  build_url: Type.String(),
  repo_url: OrNull(Type.String()),
  html_url: Type.String({ description: "The artifact's page in the console" }),
  api_url: Type.String(),
  created_at: EpochSeconds(),
  last_modified_at: EpochSeconds(),
  external_urls: Type.Record(Type.String(), Type.Unknown()),
  annotations: Type.Record(Type.String(), Type.Unknown()),
  state: Literals(artifactStates),
  state_info: Type.String({ description: 'Why it is in that state, in a sentence' }),
  deployments: Type.Array(Type.Integer(), { description: 'Kept for clients that read it; always empty (deployments are listed by environment)' }),
  evidence: Type.Record(Type.String(), Type.Unknown(), { description: "Kept for clients that read it; the trail's compliance status has the attestations" }),
  created_by: CreatedBy,
  log_index: LogIndex,
};

/** An artifact in a list: without where it runs and its history. */
export const ArtifactListItem = Type.Object(artifactFields, { $id: 'ArtifactListItem', additionalProperties: false });

/** One artifact with where it runs, where it ran and its history. */
export const Artifact = Type.Object(
  {
    ...artifactFields,
    running: Type.Array(Type.Ref(ArtifactEnvironment), { description: 'Environments whose latest snapshot has it' }),
    exited: Type.Array(Type.Ref(ArtifactEnvironment), { description: 'Environments it ran in and no longer does' }),
    history: Type.Array(Type.Ref(ArtifactEvent)),
  },
  { $id: 'Artifact', additionalProperties: false },
);

export const artifactSchemas = [ArtifactEnvironment, ArtifactEvent, ArtifactListItem, Artifact];
