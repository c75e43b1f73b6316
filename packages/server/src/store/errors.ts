/**
 * The store's failures, by kind: what SQLite's codes, PostgreSQL's SQLSTATEs and the drivers'
 * connection errors mean for a caller. The store throws `StoreError`s; the HTTP layer maps each
 * kind to a status (http/errors.ts) without knowing any driver.
 */

export type StoreErrorKind =
  /** The database could not be reached, or is shutting down: may work again shortly. */
  | 'unavailable'
  /** It answered, but too busy: a lock or statement timed out, or no connection was free. */
  | 'busy'
  /** It takes no writes (a PostgreSQL standby, or a cluster made read-only during a failover). */
  | 'read-only'
  /** No room for the write (a full disk, or the SQLite file at its `maxSizeBytes`); the transaction rolled back. */
  | 'full'
  /** The SQLite file was moved, deleted or replaced while the server ran (sqlite/open.ts, `databaseFileGuard`). */
  | 'moved'
  /** Reading or writing the SQLite files failed (I/O errors, files it cannot open, lock or recover). */
  | 'storage'
  /** Text PostgreSQL cannot store (a NUL character, a \u0000 escape in JSON): the input check missed it. */
  | 'unstorable-text'
  /** A constraint, serialisation failure or deadlock the store did not resolve itself. */
  | 'conflict'
  /** The database lacks a migration this server needs (queries/health.ts). */
  | 'migrations-pending'
  /** The store is still starting (SQLite's writer thread, started in the background): ready shortly. */
  | 'starting';

/** A failure of the store; `code` is the driver's (or the store's own) code, kept for logs and across threads. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly kind: StoreErrorKind,
    message: string,
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** SQLSTATE of a write refused by a read-only transaction (read_only_sql_transaction). */
export const readOnlySqlState = '25006';

/** SQLite's extended code for a write to a file moved since it was opened; also the store's own when it finds so itself. */
export const databaseMovedCode = 'SQLITE_READONLY_DBMOVED';

/** The store's code for a database without the migrations this server needs. */
export const migrationsPendingCode = 'TRAILPROOF_MIGRATIONS_PENDING';

const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
/** SQLite's lock time-out; too_many_connections; query_canceled (a statement time-out). */
const busyCodes = new Set(['SQLITE_BUSY', '53300', '57014']);
/** Messages of `pg` and its pool for connections lost or never made (they carry no code). */
const unavailableMessages =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Query read timeout/i;

/** The kind of a driver's error; undefined for anything else (a bug, a client's error, a value that is no error). */
export function storeErrorKind(error: unknown): StoreErrorKind | undefined {
  if (error instanceof StoreError) return error.kind;
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code === '22021' || code === '22P05') return 'unstorable-text';
  if (code === 'SQLITE_FULL' || code === '53100') return 'full';
  if (code === databaseMovedCode) return 'moved';
  // The bare SQLITE_READONLY (a write on a read-only connection) is none of these: a bug here.
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY_')) return 'storage';
  if (code === readOnlySqlState) return 'read-only';
  if (busyCodes.has(code)) return 'busy';
  if (unavailableCodes.has(code) || /^08/.test(code) || /^57P0/.test(code)) return 'unavailable';
  if (code === migrationsPendingCode) return 'migrations-pending';
  if (code.startsWith('SQLITE_CONSTRAINT') || /^23/.test(code) || code === '40001' || code === '40P01') return 'conflict';
  if (typeof e?.message === 'string' && unavailableMessages.test(e.message)) return 'unavailable';
  return undefined;
}

/** `error` as a `StoreError` when it is a driver's error of a known kind; as it is otherwise. */
export function asStoreError(error: unknown): unknown {
  if (error instanceof StoreError) return error;
  const kind = storeErrorKind(error);
  if (!kind) return error;
  const { message, code } = error as { message?: unknown; code?: unknown };
  return new StoreError(kind, typeof message === 'string' ? message : String(error), typeof code === 'string' ? code : undefined, { cause: error });
}

const rethrow = (error: unknown): never => {
  throw asStoreError(error);
};

/** `methods` with each function's failures turned into `StoreError`s (`asStoreError`). */
export function withStoreErrors<T extends object>(methods: T): T {
  const out: Record<string, unknown> = { ...(methods as Record<string, unknown>) };
  for (const [name, value] of Object.entries(methods)) {
    if (typeof value !== 'function') continue;
    const method = (...args: unknown[]) => {
      try {
        const result = (value as (...a: unknown[]) => unknown)(...args);
        return result instanceof Promise ? result.catch(rethrow) : result;
      } catch (error) {
        return rethrow(error);
      }
    };
    out[name] = method;
  }
  return out as T;
}
