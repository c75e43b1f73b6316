/**
 * The store: every query the plugins use, over one Kysely instance, so that SQLite and
 * PostgreSQL share one code path. Each query is a plain function of the database; the store
 * binds them, and `transaction` hands the same functions bound to a transaction.
 */
import { availableParallelism } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database, Db, DialectName } from './database.ts';
import { migrate } from './migrations.ts';
import { ensureOrganization, findOrganization, getBlob, listOrganizations, putBlob } from './organizations.ts';
import { verifyChain } from './chain-verify.ts';
import { verifyChainOnThread } from './chain-verify-thread.ts';
import { findToken, insertToken, listTokens, revokeToken } from './tokens.ts';
import { appendAttestation, appendAttestations, ensureFlow, findFlow, listAttestations, upsertTrail } from './trails.ts';
import { listEnvironments, upsertEnvironment } from './environments.ts';
import { insertDeployments, listDeployments } from './deployments.ts';
import { addReview, artifactsOfCommits, getApproval, insertApproval, listApprovals } from './approvals.ts';
import { getFlowRecord, listFlowRecords, upsertFlow } from './flows.ts';
import { artifactNameOf, attachmentOf, attestationFactsOfTrails, attestationsOfFingerprints, deployedNameOf, findTrail, getTrailById, listTrailPage } from './evidence.ts';
import { findEnvironment, getSnapshot, insertSnapshot, lockForUpdate, recordReport, typesOfEnvironments } from './snapshots.ts';
import { insertEnvironmentEvents, listEnvironmentEvents } from './environment-events.ts';
import { checkDatabase } from './health.ts';
import { evidenceOfToken } from './provenance.ts';
import { auditApprovalPlaces, auditAttestations, auditRows, auditSnapshotPlaces, auditTokenDescriptions, logVerifierKey } from './audit-export.ts';
import { openPostgres, type PostgresOptions } from './postgres.ts';
import { batchedWrites, groupCommit } from './group-commit.ts';
import { startCheckpointer, walAutocheckpoint } from './checkpoint.ts';
import { openSqlite, type SqliteOptions } from './sqlite.ts';
import { lockedDriver, startWriterThread } from './writer-thread.ts';
import { startReaderThreads, type ReaderThreads } from './reader-threads.ts';
import { readerProcedures } from './reader-procedures.ts';
import { oncePerTurn, rememberOrganizations, rememberTokensUntilChange } from './remembered.ts';
import { listenForTokenChanges } from './token-changes.ts';
import { consistencyProofOf, inclusionProofOf, logIndexesOf, logLeaves, logTree, subtreeHashes } from './log.ts';
import { checkpointsFrom, latestCheckpoint, listCheckpoints } from './log-checkpoints.ts';
import { startLog, type LogOptions, type LogParts } from './log-store.ts';
import { verifyLog } from './log-verify.ts';

const queries = {
  ensureOrganization, findOrganization, listOrganizations, putBlob, getBlob, verifyChain,
  insertToken, findToken, listTokens, revokeToken,
  findFlow, ensureFlow, upsertTrail, findTrail, appendAttestation, listAttestations,
  upsertEnvironment, listEnvironments,
  insertDeployments, listDeployments,
  insertApproval, listApprovals, getApproval, artifactsOfCommits,
  // The evidence model (issue 3): flows, reading trails back, snapshots, reviews, row locks.
  upsertFlow, getFlowRecord, listFlowRecords,
  listTrailPage, getTrailById, attestationsOfFingerprints, attestationFactsOfTrails, attachmentOf, artifactNameOf, deployedNameOf,
  lockForUpdate, findEnvironment, typesOfEnvironments, getSnapshot, insertSnapshot, recordReport,
  insertEnvironmentEvents, listEnvironmentEvents,
  addReview,
  checkDatabase,
  evidenceOfToken,
  // The transparency log (issue 34).
  logTree, subtreeHashes, inclusionProofOf, consistencyProofOf, logLeaves, logIndexesOf, latestCheckpoint, listCheckpoints, checkpointsFrom, verifyLog,
  auditRows, auditAttestations, auditSnapshotPlaces, auditApprovalPlaces, auditTokenDescriptions, logVerifierKey,
};

/**
 * Queries that only read: every one of them. Outside a transaction they run on a separate read
 * connection (SQLite), so that they do not wait behind writes: a query on the writer connection
 * pauses the writer thread first, which waits for the batch it is writing to commit (a read under
 * write load waited tens to hundreds of milliseconds for it).
 */
const readOnly = new Set<keyof typeof queries>([
  'findOrganization', 'listOrganizations', 'getBlob', 'verifyChain', 'findToken', 'listTokens', 'findFlow', 'findTrail', 'listAttestations',
  'listEnvironments', 'listDeployments', 'listApprovals', 'getApproval', 'artifactsOfCommits', 'listEnvironmentEvents', 'checkDatabase', 'evidenceOfToken',
  'getFlowRecord', 'listFlowRecords', 'listTrailPage', 'getTrailById', 'attestationsOfFingerprints', 'attestationFactsOfTrails', 'attachmentOf', 'artifactNameOf', 'deployedNameOf',
  'findEnvironment', 'typesOfEnvironments', 'getSnapshot',
  'logTree', 'subtreeHashes', 'inclusionProofOf', 'consistencyProofOf', 'logLeaves', 'logIndexesOf', 'latestCheckpoint', 'listCheckpoints', 'checkpointsFrom', 'verifyLog',
  'auditRows', 'auditAttestations', 'auditSnapshotPlaces', 'auditApprovalPlaces', 'auditTokenDescriptions', 'logVerifierKey',
]);

type Bound<Q> = { [K in keyof Q]: Q[K] extends (db: Db, ...args: infer A) => infer R ? (...args: A) => R : never };

/** The queries, bound to a database or to a transaction. */
export type Queries = Bound<typeof queries>;

export interface Store extends Queries, Partial<LogParts> {
  readonly dialect: DialectName;
  /** Runs `work` in one transaction: all of its writes commit together or not at all. */
  transaction<T>(work: (tx: Queries) => Promise<T>): Promise<T>;
  /** Closes the database; the store is unusable afterwards. */
  close(): Promise<void>;
  /** SQLite only: copies the database to `file` with the online backup API (safe while serving). */
  backup?(file: string): Promise<void>;
}

function bind(db: Db, reader: Db = db): Queries {
  const out: Record<string, unknown> = {};
  for (const [name, query] of Object.entries(queries)) {
    const on = readOnly.has(name as keyof typeof queries) ? reader : db;
    out[name] = (...args: unknown[]) => (query as (db: Db, ...a: unknown[]) => unknown)(on, ...args);
  }
  return out as Queries;
}

/** Wraps a migrated Kysely instance as a store. */
export function createStore(
  db: Kysely<Database>,
  dialect: DialectName,
  extra: Pick<Store, 'backup'> & Partial<Pick<Store, 'verifyChain'>> & { runTransaction?: <T>(work: (trx: Db) => Promise<T>) => Promise<T>; reader?: Kysely<Database> } = {},
): Store {
  const { runTransaction = (work) => db.transaction().execute(work), reader, ...rest } = extra;
  const top = bind(db, reader ?? db);
  return {
    ...top,
    findOrganization: rememberOrganizations(top.findOrganization),
    ...rest,
    dialect,
    transaction: (work) => runTransaction((trx) => work(bind(trx))),
    close: once(async () => {
      await db.destroy();
      await reader?.destroy();
    }),
  };
}

/** `close` that runs once: a second call (a caller's `finally` after a shutdown) waits for the first instead of closing what is gone. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}

async function migrated(db: Kysely<Database>, dialect: DialectName, schema?: string): Promise<Kysely<Database>> {
  try {
    await migrate(db, dialect, schema);
    return db;
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

/** Opens (creating if needed) a SQLite file, applies pending migrations and returns the store. */
export async function openSqliteStore(file: string, options: SqliteOptions & { log?: LogOptions } = {}): Promise<Store> {
  // Attestations are stored by a writer thread (writer-thread.ts), which this connection pauses
  // whenever it writes itself. An in-memory database has no file another thread could open.
  const inMemory = file === ':memory:' || file === '';
  let checkpointer: ReturnType<typeof startCheckpointer> = null;
  let log: Awaited<ReturnType<typeof startLog>> | undefined;
  const committed = () => {
    checkpointer?.committed();
    log?.changed();
  };
  const writer = inMemory ? null : startWriterThread(file, { ...options, afterCommit: committed, walAutocheckpoint });
  const readers = inMemory ? null : startReaderThreads(file, options.readerThreads ?? defaultReaderThreads);
  const { db, reader, raw, readerRaw, unmoved } = openSqlite(file, { ...options, wrapDriver: writer ? (driver) => lockedDriver(driver, writer.pause) : undefined });
  await migrated(db, 'sqlite');
  checkpointer = startCheckpointer(raw, file);
  log = await startLog(db, options.log);
  const dataVersion = readerRaw.prepare('pragma data_version').pluck();
  if (writer && options.threadsAtOpen) {
    await Promise.all([writer.ready(), readers?.ready()]).catch(async (error) => {
      await Promise.allSettled([writer.close(), readers?.close(), checkpointer?.close(), db.destroy(), reader.destroy()]);
      throw error;
    });
  }
  const store = createStore(db, 'sqlite', {
    reader,
    // The whole database in one step of SQLite's backup API: a step copies from one consistent read
    // of the source, while copied a few pages per step the copy starts over whenever the server (or
    // another process) commits in between, which under continuous writes may be forever.
    backup: async (target) => {
      await raw.backup(target, { progress: () => 0x7fffffff });
    },
    // Verification reads the whole chain and every evidence row in one read transaction: on a
    // thread and connection of its own, so that the server's other requests do not wait for it.
    ...(inMemory ? {} : { verifyChain: (organizationId: number, orgName: string) => verifyChainOnThread(file, organizationId, orgName) }),
    // One writer, one fsync per commit: concurrent transactions share commits (see group-commit.ts).
    runTransaction: groupCommit(db, { afterCommit: committed }),
  });
  return {
    ...store,
    logSigning: log.logSigning,
    makeCheckpoints: log.makeCheckpoints,
    ...(writer ? { appendAttestation: writer.appendAttestation } : {}),
    ...(readers ? onReaderThreads(store, readers) : {}),
    findToken: rememberTokensUntilChange(store.findToken, oncePerTurn(() => dataVersion.get() as number)),
    // A file moved, deleted or replaced under the server takes no more writes (the writer's own check, sqlite.ts): not ready.
    checkDatabase: async () => {
      unmoved();
      await store.checkDatabase();
    },
    close: once(async () => {
      // Before the writer thread stops: a checkpoint made meanwhile would wait for it.
      await log?.close();
      await readers?.close();
      await writer?.close();
      await checkpointer?.close();
      await store.close();
      // Kysely closes a connection only if it ever ran a query: one that never did kept the file open.
      raw.close();
      readerRaw.close();
    }),
  };
}

/**
 * Two: a list that scans runs beside another one and beside the event loop (on two cores the
 * benchmark's heavy lists gained a third or more over one thread; its light ones lost up to a tenth).
 */
const defaultReaderThreads = Math.min(2, availableParallelism());

/** The store's lists, run on a reader thread when one is ready and on the store's reader otherwise. */
function onReaderThreads(store: Queries, readers: ReaderThreads): Pick<Queries, keyof typeof readerProcedures> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(readerProcedures) as Array<keyof typeof readerProcedures>) {
    const inProcess = store[name] as (...args: unknown[]) => unknown;
    out[name] = (...args: unknown[]) => readers.run(name, args as never) ?? inProcess(...args);
  }
  return out as Pick<Queries, keyof typeof readerProcedures>;
}

/** Connects to PostgreSQL (`postgres://...`), applies pending migrations and returns the store. */
export async function openPostgresStore(url: string, options: PostgresOptions & { log?: LogOptions } = {}): Promise<Store> {
  const { db, pool } = openPostgres(url, options);
  if (options.schema) await pool.query(`create schema if not exists "${options.schema.replace(/"/g, '""')}"`).catch(async (error) => {
    await db.destroy();
    throw error;
  });
  await migrated(db, 'postgres', options.schema);
  const log = await startLog(db, options.log);
  const store = createStore(db, 'postgres', { runTransaction: async (work) => {
    const result = await db.transaction().execute(work);
    log.changed();
    return result;
  } });
  // The health check has a connection of its own (opened on its first check): with every
  // connection of the pool busy, a busy process is not a dead one, and a load balancer that
  // took it for one would move its load onto the others.
  const health = openPostgres(url, { ...options, maxConnections: 1, applicationName: 'trailproof health check' }).db;
  // Attestations arriving together share a transaction and one chain append (see batchedWrites).
  const attestations = batchedWrites(db, appendAttestations, { afterCommit: () => log.changed() });
  // Tokens are remembered until PostgreSQL says the tokens table changed (token-changes.ts).
  const tokenChanges = listenForTokenChanges(url, { connectionTimeoutMs: options.connectionTimeoutMs });
  const thenForget = <A extends unknown[], R>(write: (...args: A) => Promise<R>) => async (...args: A) => {
    try {
      return await write(...args);
    } finally {
      tokenChanges.changed();
    }
  };
  return {
    ...store,
    findToken: rememberTokensUntilChange(store.findToken, tokenChanges.version),
    // This process's own changes apply to its next request without waiting for the notification.
    insertToken: thenForget(store.insertToken),
    revokeToken: thenForget(store.revokeToken),
    appendAttestation: attestations.write,
    logSigning: log.logSigning,
    makeCheckpoints: log.makeCheckpoints,
    checkDatabase: () => checkDatabase(health),
    close: once(async () => {
      await tokenChanges.close();
      await attestations.drained();
      await log.close();
      await health.destroy();
      await store.close();
    }),
  };
}

/** True for `postgres://` and `postgresql://` URLs. */
export const isPostgresUrl = (location: string) => /^postgres(ql)?:\/\//i.test(location);

/** Opens a PostgreSQL URL or a SQLite file path. */
export function openStore(location: string, options: { sqlite?: SqliteOptions; postgres?: PostgresOptions; log?: LogOptions } = {}): Promise<Store> {
  return isPostgresUrl(location) ? openPostgresStore(location, { ...options.postgres, log: options.log }) : openSqliteStore(location, { ...options.sqlite, log: options.log });
}

export type { Database, DialectName } from './database.ts';
export type { PostgresOptions } from './postgres.ts';
export type { SqliteOptions } from './sqlite.ts';
export type { EnvironmentInput, EnvironmentRecord, EnvironmentFilter } from './environments.ts';
export type { DeploymentInsert, DeploymentRecord, DeploymentFilter } from './deployments.ts';
export type { ApprovalInsert, ApprovalRecord, ApprovalState, ReviewRecord } from './approvals.ts';
export type { TrailInput, TrailRow, FlowRow, AttestationInsert, AttestationRow, AttestationAppend, AppendResult } from './trails.ts';
export type { TokenRow } from './tokens.ts';
export type { TokenEvidence } from './provenance.ts';
export type { BrokenLink, VerifyResult } from './chain-verify.ts';
export type { LogLeaf, LogTree, LoggedTable } from './log.ts';
export type { CheckpointRecord } from './log-checkpoints.ts';
export type { LogVerifyOptions, LogVerifyResult } from './log-verify.ts';
export type { LogOptions } from './log-store.ts';
export { originOf, type LogSigning } from './log-signing.ts';
export { canonicalJson, genesisHash } from './chain.ts';
export { blobAddress } from './organizations.ts';
export type { TokenRef } from './provenance.ts';
export { targetArtifactsOf } from './evidence.ts';
export type { FlowChanges, FlowRecord } from './flows.ts';
export type { AttestationFactsRow, FingerprintAttestation, TrailWithTemplate } from './evidence.ts';
export type { EnvironmentRow, RunningArtifact, SnapshotRecord } from './snapshots.ts';
export type { EnvironmentEventFilter, EnvironmentEventInsert, EnvironmentEventRecord } from './environment-events.ts';
