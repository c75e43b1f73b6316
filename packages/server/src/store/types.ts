/**
 * What the rest of the server knows of the store: the `Store` interface, which SQLite
 * (store/sqlite/) and PostgreSQL (store/postgres/) assemble alike, and the records its queries
 * take and return. Domain code and operations import from here, not from the assembly.
 */
import type { Db, DialectName } from './database.ts';
import type { ReadQueries, WriteQueries } from './queries/index.ts';
import type { PoolUse, WriteBatchListener } from './write-batches.ts';
import type { LogParts } from './log-store.ts';

type Bound<Q> = { [K in keyof Q]: Q[K] extends (db: Db, ...args: infer A) => infer R ? (...args: A) => R : never };

/** The queries, bound to a database or to a transaction. */
export type Queries = Bound<ReadQueries & WriteQueries>;

/** `logSigning` and `makeCheckpoints`: on the stores a server opens (not on one opened to read, as `trailproof verify` does). */
export interface Store extends Queries, Partial<LogParts> {
  readonly dialect: DialectName;
  /** Runs `work` in one transaction: all of its writes commit together or not at all. */
  transaction<T>(work: (tx: Queries) => Promise<T>): Promise<T>;
  /** Closes the database; the store is unusable afterwards. */
  close(): Promise<void>;
  /** SQLite only: copies the database to `file` with the online backup API (safe while serving). */
  backup?(file: string): Promise<void>;
  /** Calls `listener` after each committed write batch (the metrics); returns the function that stops it. */
  onWriteBatch?(listener: WriteBatchListener): () => void;
  /** PostgreSQL only: the connection pool's use now (the metrics). */
  poolUse?(): PoolUse;
  /**
   * SQLite only: a number that moves with every commit, of this process or another
   * (`PRAGMA data_version`, read once per turn of the event loop): what was read while it stays
   * the same is what the database still holds (store/remembered.ts).
   */
  committedVersion?(): number;
}

/**
 * Part of a store: its members `S` and, when `T` names any query, a transaction whose queries are
 * `T`. What a plugin declares it gets (plugin-store.ts); helpers take the part they use.
 */
export type StorePart<S extends keyof Store = never, T extends keyof Queries = never> = Pick<Store, S> &
  ([T] extends [never] ? unknown : { transaction<R>(work: (tx: Pick<Queries, T>) => Promise<R>): Promise<R> });

/** The members a helper's list of uses names (`requireFlowUses` in operations/lookup.ts). */
export type StoreUses<L extends readonly (keyof Store)[]> = Pick<Store, L[number]>;

export type { Database, DialectName } from './database.ts';
export type { ApprovalInsert, ApprovalRecord, ApprovalState, ReviewRecord } from './queries/approvals.ts';
export type { AppendResult, AttestationAppend, AttestationInsert, AttestationRow } from './queries/attestations.ts';
export type { ArtifactAppend, ArtifactAppendResult, ArtifactRow } from './queries/artifacts.ts';
export type { ArtifactMatchRow } from './queries/artifact-matches.ts';
export type { AttestationFactsRow, FingerprintAttestation, JunitSuiteTotals } from './queries/attestation-facts.ts';
export type { BrokenLink, VerifyResult } from './queries/chain-verify.ts';
export type { ArtifactDeployment, DeploymentFilter, DeploymentInsert, DeploymentListRow } from './queries/deployments.ts';
export type { EnvironmentEventFilter, EnvironmentEventInsert, EnvironmentEventRecord } from './queries/environment-events.ts';
export type { ArtifactKey, ArtifactListFilter, DeployedFingerprint, FingerprintEventRow, ReadArtifactRow } from './queries/artifact-reads.ts';
export type { EnvironmentFilter, EnvironmentListRow } from './queries/environment-list.ts';
export type { EnvironmentStatus, EnvironmentStatusSort } from './queries/environment-status.ts';
export type { EnvironmentInput, EnvironmentNow, EnvironmentRecord, EnvironmentRow } from './queries/environments.ts';
export type { FlowChanges, FlowRecord, FlowRow, FlowWithLatestTrail } from './queries/flows.ts';
export type { TokenEvidence, TokenRef } from './queries/provenance.ts';
export type { RunningArtifact, SnapshotRange, SnapshotRecord, SnapshotSummary } from './queries/snapshots.ts';
export type { TokenRow } from './queries/tokens.ts';
export type { ConsoleSessionRow } from './queries/console-sessions.ts';
export type { ConsoleIdentity, ConsoleIdentitySessionRow } from './queries/console-identity-sessions.ts';
export type { EnvironmentBadgeRow } from './queries/badges.ts';
export type { ArtifactApproval } from './queries/artifact-approvals.ts';
export type { TrailInput, TrailRow, TrailWithTemplate } from './queries/trails.ts';
export type { BatchTiming, BatchWriter, PoolUse, WriteBatch, WriteBatchListener } from './write-batches.ts';
export type { LogLeaf, LoggedTable, LogTree } from './queries/log.ts';
export type { CheckpointRecord } from './queries/log-checkpoints.ts';
export type { LogVerifyOptions, LogVerifyResult } from './queries/log-verify.ts';
export type { LogOptions } from './log-store.ts';
export type { LogSigning } from './log-signing.ts';
export type { LatestPolicyVersion, PolicyArtifactRow } from './queries/policy-facts.ts';
export type { PolicyRecord } from './queries/policies.ts';
export type { VerdictRow } from './queries/verdicts.ts';
export type { ControlRecord } from './queries/controls.ts';
