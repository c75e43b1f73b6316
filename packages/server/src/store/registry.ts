/**
 * Binds the queries (store/queries/) to a database: reads to the read connection, writes to
 * the writer, and all of them to the transaction inside `transaction`. Which is which comes from
 * each query module's own `reads` and `writes`. The engines (store/sqlite/store.ts,
 * store/postgres/store.ts) start from `baseStore` and name what they run their own way in one
 * table each, which `assembleStore` puts in place; every method of the result throws the
 * driver's errors as `StoreError`s (store/errors.ts).
 */
import type { Kysely } from 'kysely';
import type { Database, Db, DialectName } from './database.ts';
import { withStoreErrors } from './errors.ts';
import { migrate } from './migrations.ts';
import { readQueries, writeQueries } from './queries/index.ts';
import { rememberOrganizations } from './remembered.ts';
import type { Queries, Store } from './types.ts';

/**
 * Outside a transaction the reads run on a separate read connection (SQLite), so that they do
 * not wait behind writes: a query on the writer connection pauses the writer thread first, which
 * waits for the batch it is writing to commit (a read under write load waited tens to hundreds
 * of milliseconds for it).
 */
function bind(db: Db, reader: Db = db): Queries {
  const out: Record<string, unknown> = {};
  for (const [queries, on] of [
    [readQueries, reader],
    [writeQueries, db],
  ] as const) {
    for (const [name, query] of Object.entries(queries)) {
      out[name] = (...args: unknown[]) => (query as (db: Db, ...a: unknown[]) => unknown)(on, ...args);
    }
  }
  return out as Queries;
}

/** How an engine runs the base's transactions and reads (both optional: one Kysely instance for all). */
export interface BaseOptions {
  runTransaction?: <T>(work: (trx: Db) => Promise<T>) => Promise<T>;
  reader?: Kysely<Database>;
}

/**
 * What every engine starts from: the queries bound to `db` (reads to `reader`), organisations
 * remembered, a transaction and a close. Its errors are not yet `StoreError`s: `assembleStore`
 * wraps the finished store once.
 */
export function baseStore(db: Kysely<Database>, dialect: DialectName, options: BaseOptions = {}): Store {
  const { runTransaction = (work) => db.transaction().execute(work), reader } = options;
  const top = bind(db, reader ?? db);
  return {
    ...top,
    findOrganization: rememberOrganizations(top.findOrganization),
    dialect,
    transaction: (work) => runTransaction((trx) => work(withStoreErrors(bind(trx)))),
    // The reader first: SQLite's last connection to close copies the WAL into the file and removes
    // it, which SQLite's read-only reader cannot do (a WAL left beside the file after a clean close).
    close: once(async () => {
      await reader?.destroy();
      await db.destroy();
    }),
  };
}

const overriddenNames = new WeakMap<Store, readonly string[]>();

/**
 * The store of an engine: `base` with each member its `overrides` table names in its place (the
 * table is the one list of what an engine runs its own way), every method's failures wrapped once
 * as `StoreError`s, and a health check that fails once the store is closing.
 */
export function assembleStore(base: Store, overrides: Partial<Store>): Store {
  const store = closedForChecks(withStoreErrors<Store>({ ...base, ...overrides }));
  overriddenNames.set(store, Object.keys(overrides).sort());
  return store;
}

/** The members the engine's table replaced in `store` (sorted): what the engine runs its own way. */
export function overriddenBy(store: Store): readonly string[] {
  return overriddenNames.get(store) ?? [];
}

/** A store of the queries alone, on a migrated Kysely instance (the CLI's reads and exports): nothing overridden. */
export function createStore(db: Kysely<Database>, dialect: DialectName): Store {
  return assembleStore(baseStore(db, dialect), {});
}

/**
 * A store whose health check fails once it is closing: Kysely's `destroy` leaves a connection
 * that never ran a query able to open itself again, and PostgreSQL's health check connection,
 * unused until the first check, then answered for a closed store (and reopened a pool).
 */
function closedForChecks(store: Store): Store {
  let closed = false;
  return {
    ...store,
    checkDatabase: async () => {
      if (closed) throw new Error('the store is closed');
      await store.checkDatabase();
    },
    close: () => {
      closed = true;
      return store.close();
    },
  };
}

/** `close` that runs once: a second call (a caller's `finally` after a shutdown) waits for the first instead of closing what is gone. */
export function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}

/** `db` with pending migrations applied; destroyed when they fail. */
export async function migrated(db: Kysely<Database>, dialect: DialectName, schema?: string): Promise<Kysely<Database>> {
  try {
    await migrate(db, dialect, schema);
    return db;
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
