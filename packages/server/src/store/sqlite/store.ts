/**
 * The store on SQLite: the queries on a writer connection and a read connection, with the
 * writer thread storing attestations, reader threads running the lists, group commit for the
 * other transactions and a checkpointer copying the WAL back into the file.
 */
import { availableParallelism } from 'node:os';
import type { Queries, Store } from '../types.ts';
import { StoreError } from '../errors.ts';
import { assembleStore, baseStore, migrated, once } from '../registry.ts';
import { writeBatchListeners } from '../write-batches.ts';
import { oncePerTurn, rememberTokensUntilChange } from '../remembered.ts';
import { verifyChainOnThread } from './chain-verify-thread.ts';
import { startCheckpointer, walAutocheckpoint } from './checkpoint.ts';
import { groupCommit } from './group-commit.ts';
import { openSqlite, type SqliteOptions } from './open.ts';
import type { ReaderProcedures } from './reader-procedures.ts';
import { startReaderThreads, type ReaderThreads } from './reader-threads.ts';
import { lockedDriver, startWriterThread } from './writer-thread.ts';
import { startLog, type LogOptions, type StartedLog } from '../log-store.ts';
import { logReadsOn } from './log-reads.ts';

/** Opens (creating if needed) a SQLite file, applies pending migrations and returns the store. */
export async function openSqliteStore(file: string, options: SqliteOptions & { log?: LogOptions } = {}): Promise<Store> {
  // Attestations are stored by a writer thread (writer-thread.ts), which this connection pauses
  // whenever it writes itself, and reads run on read-only connections and threads of their own:
  // each opens the file, which an in-memory database does not have.
  if (file === ':memory:' || file === '') throw new InMemoryDatabaseError();
  let checkpointer: ReturnType<typeof startCheckpointer> = null;
  const batches = writeBatchListeners();
  const workerBatches = { attestations: batches.emitter('attestations'), artifacts: batches.emitter('artifacts') };
  const transactionBatches = batches.emitter('transactions');
  let log: StartedLog | undefined;
  // After each commit: the WAL checkpointer copies it, the log signs the trees it grew (log-store.ts).
  const committed = () => {
    checkpointer?.committed();
    log?.changed();
  };
  const writer = startWriterThread(file, { ...options, afterCommit: (batch, writer) => (committed(), workerBatches[writer](batch)), walAutocheckpoint });
  const readers = startReaderThreads(file, options.readerThreads ?? defaultReaderThreads);
  const { db, reader, raw, readerRaw, unmoved } = openSqlite(file, {
    ...options,
    wrapDriver: (driver) => lockedDriver(driver, writer.pause),
  });
  // Reads by key from a large file (a log's subtrees and leaves) from the OS's page cache through a
  // map instead of a read() of each page: half the CPU of a proof's lookups at 10,000,000 leaves.
  // The read connection only (SQLite caps the map at 2 GB).
  readerRaw.pragma('mmap_size = 2147418112');
  await migrated(db, 'sqlite');
  checkpointer = startCheckpointer(raw, file);
  log = await startLog(db, options.log, reader);
  const dataVersion = readerRaw.prepare('pragma data_version').pluck();
  const committedVersion = oncePerTurn(() => dataVersion.get() as number);
  if (options.threadsAtOpen) {
    await Promise.all([writer.ready(), readers.ready()]).catch(async (error) => {
      await Promise.allSettled([writer.close(), readers.close(), checkpointer?.close(), db.destroy(), reader.destroy()]);
      throw error;
    });
  }
  const writerStarted = options.threadsInBackground ? startedInBackground(writer.ready(), readers.ready()) : null;
  // One writer, one fsync per commit: concurrent transactions share commits (see group-commit.ts).
  const base = baseStore(db, 'sqlite', { reader, runTransaction: groupCommit(db, { afterCommit: (batch) => (committed(), transactionBatches(batch)) }) });
  const onThread = onReaderThreads(base, readers);
  // Every proof request's reads, as prepared statements; a tree's size read again only after a commit.
  const logReads = logReadsOn(readerRaw, committedVersion);
  /** What SQLite runs its own way; every other member is the base's query on the read or write connection (registry.ts). */
  const overrides = {
    // The lists, on a reader thread (reader-procedures.ts).
    listDeployments: onThread('listDeployments'),
    deploymentsPerDay: onThread('deploymentsPerDay'),
    listEnvironments: onThread('listEnvironments'),
    listApprovals: onThread('listApprovals'),
    listAttestations: onThread('listAttestations'),
    attestationFactsOfTrails: onThread('attestationFactsOfTrails'),
    complianceFactsOfTrails: onThread('complianceFactsOfTrails'),
    junitResultsOf: onThread('junitResultsOf'),
    artifactReadFacts: onThread('artifactReadFacts'),
    flowArtifactsWithFacts: onThread('flowArtifactsWithFacts'),
    searchWithFacts: onThread('searchWithFacts'),
    assertReads: onThread('assertReads'),
    logSize: logReads.logSize,
    logLeaves: logReads.logLeaves,
    inclusionProofOf: logReads.inclusionProofOf,
    consistencyProofOf: logReads.consistencyProofOf,
    appendAttestation: writer.appendAttestation,
    appendArtifact: writer.appendArtifact,
    findToken: rememberTokensUntilChange(base.findToken, committedVersion),
    // A console session ends by a commit too (sign-out, its token revoked); its expiry is checked per request.
    findConsoleSession: rememberTokensUntilChange(base.findConsoleSession, committedVersion),
    findIdentitySession: rememberTokensUntilChange(base.findIdentitySession, committedVersion),
    // Verification reads the whole chain and every evidence row in one read transaction: on a
    // thread and connection of its own, so that the server's other requests do not wait for it.
    verifyChain: (organizationId: number, orgName: string) => verifyChainOnThread(file, organizationId, orgName),
    // The whole database in one step of SQLite's backup API: a step copies from one consistent read
    // of the source, while copied a few pages per step the copy starts over whenever the server (or
    // another process) commits in between, which under continuous writes may be forever.
    backup: async (target: string) => {
      await raw.backup(target, { progress: () => 0x7fffffff });
    },
    onWriteBatch: batches.subscribe,
    logSigning: log.logSigning,
    makeCheckpoints: log.makeCheckpoints,
    committedVersion,
    // A file moved, deleted or replaced under the server takes no more writes (the writer's own check, sqlite.ts): not ready.
    checkDatabase: async () => {
      writerStarted?.();
      unmoved();
      await base.checkDatabase();
    },
    close: once(async () => {
      // Before the writer thread stops: a checkpoint made meanwhile would wait for it.
      await log?.close();
      await readers.close();
      await writer.close();
      await checkpointer?.close();
      // The read connection before the writer's: SQLite's last connection to close copies the WAL
      // into the file and removes it, which a read-only connection cannot do (the WAL stayed).
      readerRaw.close();
      await base.close();
      // Kysely closes a connection only if it ever ran a query: one that never did kept the file open.
      raw.close();
    }),
  } satisfies Partial<Store> & Record<keyof ReaderProcedures, unknown>;
  return assembleStore(base, overrides);
}

/**
 * Waits for `writer` (and `readers`, whose failure leaves the lists on the store's reader) in the
 * background; the returned check throws while the writer is starting, and its error if it failed.
 */
function startedInBackground(writer: Promise<unknown>, readers: Promise<unknown>): () => void {
  let state: { starting: true } | { starting: false; error?: unknown } = { starting: true };
  writer.then(
    () => (state = { starting: false }),
    (error: unknown) => (state = { starting: false, error }),
  );
  readers.catch(() => {});
  return () => {
    if (state.starting) throw new StoreError('starting', 'the SQLite writer thread is starting');
    if ('error' in state) throw state.error;
  };
}

/**
 * Two: a list that scans runs beside another one and beside the event loop (on two cores the
 * benchmark's heavy lists gained a third or more over one thread; its light ones lost up to a tenth).
 */
const defaultReaderThreads = Math.min(2, availableParallelism());

/** A list `name` of the store's, run on a reader thread when one is ready and on the store's reader otherwise. */
function onReaderThreads(store: Queries, readers: ReaderThreads) {
  return <K extends keyof ReaderProcedures>(name: K): Queries[K] => {
    const inProcess = store[name] as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => readers.run(name, args as never) ?? inProcess(...args)) as Queries[K];
  };
}

/** `openSqliteStore` was given no file: the server's connections and threads each open the file. */
export class InMemoryDatabaseError extends RangeError {
  override readonly name = 'InMemoryDatabaseError';
  constructor() {
    super(
      'A SQLite store needs a database file: its writer thread and read connections each open the file, which an in-memory database (:memory:) does not have. Give a path (a temporary file for tests).',
    );
  }
}
