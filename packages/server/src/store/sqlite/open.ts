/**
 * Opens a SQLite database file for the store: WAL journal, `synchronous=FULL` (an acknowledged
 * piece of evidence survives a power cut), foreign keys on, a busy timeout for other processes.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import BetterSqlite3 from './driver.ts';
import { CompiledQuery, Kysely, type LimitNode, SqliteDialect, SqliteQueryCompiler, ValueNode, type Driver } from 'kysely';
import type { Database } from '../database.ts';
import { databaseMovedCode, StoreError } from '../errors.ts';

export interface SqliteOptions {
  /** `FULL` (default) fsyncs the WAL on every commit; `NORMAL` may lose the last commits on power loss. */
  synchronous?: 'FULL' | 'NORMAL';
  /**
   * Starts the threads (the writer thread that stores attestations, writer-thread.ts, and the
   * reader threads, reader-threads.ts) as the store opens, and waits for them, instead of on
   * first use: for a server, whose first requests should not wait for them. Off by default (a
   * script or test that stores or lists nothing never starts them).
   */
  threadsAtOpen?: boolean;
  /**
   * Starts the threads as the store opens without waiting for them: a server listens meanwhile.
   * Until the writer thread has opened the database the health check fails as `starting` (an
   * attestation would wait for it); lists run on the store's own reader until a reader thread is
   * ready. A thread that cannot start fails the health check with its error.
   */
  threadsInBackground?: boolean;
  /** Threads that run the list queries off the event loop (reader-threads.ts); 2 by default (1 on one core), 0 for none. */
  readerThreads?: number;
  /**
   * Largest the database file may grow, in bytes (SQLite's `max_page_count`; none by default): a
   * write that would grow it further fails as a full disk does (SQLITE_FULL, answered 507) and
   * stores nothing, while reads and writes that fit go on. A file already larger keeps its size.
   */
  maxSizeBytes?: number;
}

export interface WriterOptions extends SqliteOptions {
  /** Wraps the driver Kysely builds for the writer connection (to take a lock around each use of it, say). */
  wrapDriver?: (driver: Driver) => Driver;
}

/**
 * Opens (creating if needed) the SQLite file: a writer connection, and a read-only connection
 * for reads outside transactions, so that reads (tokens, lookups, lists) never wait behind a
 * write batch. WAL lets the reader see every committed transaction while the writer writes.
 * `unmoved` is the writer's check that the file is still at its path (`databaseFileGuard`).
 */
export function openSqlite(
  file: string,
  options: WriterOptions = {},
): {
  db: Kysely<Database>;
  reader: Kysely<Database>;
  raw: BetterSqlite3.Database;
  readerRaw: BetterSqlite3.Database;
  unmoved: () => void;
} {
  const { db, raw, unmoved } = openSqliteWriter(file, options);
  const { db: reader, raw: readerRaw } = openSqliteReader(file);
  return { db, reader, raw, readerRaw, unmoved };
}

/** A read-only connection: the store's own for reads outside transactions, and each reader thread's. */
export function openSqliteReader(file: string): { db: Kysely<Database>; raw: BetterSqlite3.Database } {
  const raw = new BetterSqlite3(file, { readonly: true });
  raw.pragma('busy_timeout = 5000');
  return { db: new Kysely<Database>({ dialect: sqliteDialect(withStatementCache(raw)) }), raw };
}

/** Page size of new databases (SQLite's default is 4KB). */
export const newDatabasePageSize = 16_384;

/**
 * A writer connection alone, with the settings above: the store's own, and the writer thread's
 * (`writer-thread.ts`).
 */
export function openSqliteWriter(file: string, options: WriterOptions = {}): { db: Kysely<Database>; raw: BetterSqlite3.Database; unmoved: () => void } {
  const { maxSizeBytes } = options;
  if (maxSizeBytes !== undefined && !(Number.isFinite(maxSizeBytes) && maxSizeBytes > 0))
    throw new RangeError(`maxSizeBytes must be a positive number of bytes, not ${maxSizeBytes}`);
  const raw = new BetterSqlite3(file);
  // A new database gets 16KB pages (before WAL mode fixes the size): an attestation's 100KB
  // attachment is 7 pages instead of 26, each written to the WAL with two system calls and
  // copied again at checkpoints. An existing database keeps its size.
  if (raw.pragma('page_count', { simple: true }) === 0) raw.pragma(`page_size = ${newDatabasePageSize}`);
  raw.pragma('journal_mode = WAL');
  if (maxSizeBytes !== undefined) {
    const pageSize = raw.pragma('page_size', { simple: true }) as number;
    raw.pragma(`max_page_count = ${Math.max(1, Math.floor(maxSizeBytes / pageSize))}`);
  }
  raw.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const dialect = sqliteDialect(withStatementCache(raw));
  const createDriver = dialect.createDriver.bind(dialect);
  const unmoved = databaseFileGuard(file);
  dialect.createDriver = () => {
    const driver = immediateTransactions(createDriver(), unmoved);
    return options.wrapDriver ? options.wrapDriver(driver) : driver;
  };
  return { db: new Kysely<Database>({ dialect }), raw, unmoved };
}

/** `driver` with some of its methods replaced (the others called on it as they are). */
export function overrideDriver(driver: Driver, overrides: Partial<Driver>): Driver {
  return new Proxy(driver, {
    get(target, property) {
      if (property in overrides) return overrides[property as keyof Driver];
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Transactions that take the write lock when they begin (BEGIN IMMEDIATE). Kysely begins them
 * DEFERRED: such a transaction reads first, and when it then writes after another connection
 * (another process, or the writer thread) has committed, SQLite refuses at once with
 * SQLITE_BUSY, without waiting in the busy handler. IMMEDIATE waits for its turn instead.
 * Holding the lock, each first checks that the file is still where it was opened (`unmoved`).
 */
function immediateTransactions(driver: Driver, unmoved: () => void): Driver {
  return overrideDriver(driver, {
    beginTransaction: async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      try {
        unmoved();
      } catch (error) {
        await connection.executeQuery(CompiledQuery.raw('rollback'));
        throw error;
      }
    },
  });
}

/**
 * A check that the database file is still at its path, the very file this process opened: it
 * throws a `StoreError` of kind `moved` (code {@link databaseMovedCode}) once the file was renamed, deleted, or
 * replaced by another (`mv backup.db trailproof.db` under a running server). A connection keeps
 * the file it opened, and in WAL mode SQLite goes on committing into it (seen here: writes after
 * `mv` answered 201), so those commits are lost to the next start, which opens what is at the
 * path, or finds nothing (a deleted file, and its WAL, with every write acknowledged since).
 * One stat() of the path. (The store has a file: openSqliteStore refuses an in-memory database.)
 */
function databaseFileGuard(file: string): () => void {
  const path = resolve(file);
  const opened = statSync(path, { bigint: true });
  return () => {
    const now = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (now?.ino === opened.ino && now.dev === opened.dev) return;
    const what = now ? 'replaced by another file' : 'moved or deleted';
    throw new StoreError(
      'moved',
      `the database file ${path} was ${what} while the server ran; restart the server to open what is there now`,
      databaseMovedCode,
    );
  };
}

/**
 * Kysely prepares every query anew; preparing is a measurable part of a small query's cost.
 * Cache prepared statements by their SQL (bounded), which is safe because better-sqlite3 runs
 * each statement to completion synchronously.
 */
function withStatementCache(database: BetterSqlite3.Database, size = 500): BetterSqlite3.Database {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return new Proxy(database, {
    get(target, property, receiver) {
      if (property === 'prepare') {
        return (source: string) => {
          let statement = cache.get(source);
          if (!statement) {
            statement = target.prepare(source);
            if (cache.size >= size) cache.delete(cache.keys().next().value!);
            cache.set(source, statement);
          }
          return statement;
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Kysely's SQLite dialect, compiling a bound LIMIT as `? + 0` instead of `?`. SQLite 3.47 and
 * later reads a bound LIMIT's value while planning, which marks the statement to be planned
 * again whenever that parameter is bound anew: every run of a cached statement with a LIMIT (the
 * list pages, the chain head's `limit 1`) was parsed and planned once more. It does not read an expression's value; the
 * plans of the benchmark's queries are unchanged (the same indexes, no sort added). Its ROLLBACK runs
 * only while a transaction is open (`rollbackWhileOpen`).
 */
export function sqliteDialect(database: BetterSqlite3.Database): SqliteDialect {
  const dialect = new SqliteDialect({ database });
  dialect.createQueryCompiler = () => new PlannedOnceCompiler();
  const createDriver = dialect.createDriver.bind(dialect);
  dialect.createDriver = () => rollbackWhileOpen(createDriver(), database);
  return dialect;
}

/**
 * A ROLLBACK only while a transaction is open on `database`: on some errors (SQLITE_FULL from a
 * full disk, SQLITE_IOERR, SQLITE_NOMEM) SQLite has rolled the whole transaction back itself, and
 * the driver's ROLLBACK then failed with "cannot rollback - no transaction is active", an error
 * that replaced the real one (a full disk answered 500 instead of 507).
 */
function rollbackWhileOpen(driver: Driver, database: BetterSqlite3.Database): Driver {
  return overrideDriver(driver, {
    rollbackTransaction: async (connection) => {
      if (database.inTransaction) await driver.rollbackTransaction(connection);
    },
  });
}

class PlannedOnceCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    super.visitLimit(node);
    if (ValueNode.is(node.limit)) this.append(' + 0');
  }
}
