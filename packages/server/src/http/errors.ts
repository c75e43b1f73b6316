/**
 * Errors are thrown values with a `status`; one middleware renders every one of them as
 * `{ "message": ..., "errors": {...} }`. A 5xx logs its cause and tells the client nothing internal
 * but the request's id (when the app gave it one), which names the cause's log line.
 */
import type { Context, Next } from 'koa';
import type { FieldErrors } from '@trailproof/schema';
import type { Logger } from '../log.ts';
import { databaseMovedCode, readOnlySqlState } from '../store/queries/health.ts';
import { clientClosed, discardBody } from './unread-body.ts';

/** An error meant for the client: its status, message and per-field messages are shown as they are. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly expose = true;
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldErrors,
    /** Extra response headers, such as `Retry-After`. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, errors?: FieldErrors) => new ApiError(400, message, errors);
export const notFound = (message: string) => new ApiError(404, message);

/** multer / busboy error codes → what the client did wrong. */
const multipartErrors: Record<string, { status: number; message: string }> = {
  LIMIT_FILE_SIZE: { status: 413, message: 'File too large: files may be at most 10MB' },
  LIMIT_PART_COUNT: { status: 413, message: 'Too many parts in the multipart body' },
  LIMIT_FILE_COUNT: { status: 413, message: 'Too many files in the multipart body' },
  LIMIT_FIELD_COUNT: { status: 413, message: 'Too many fields in the multipart body' },
  LIMIT_FIELD_VALUE: { status: 413, message: 'A form field is too large' },
  LIMIT_FIELD_KEY: { status: 400, message: 'A form field name is too long' },
  LIMIT_UNEXPECTED_FILE: { status: 400, message: 'Unexpected file part' },
  MISSING_FIELD_NAME: { status: 400, message: 'A multipart part has no name' },
  LIMIT_FIELD_NESTING: { status: 400, message: 'Nested form field names are not accepted' },
  LIMIT_FIELD_ARRAY_INDEX: { status: 400, message: 'Form field array indexes are not accepted' },
  INVALID_FIELD_NAME: { status: 400, message: 'Invalid form field name' },
};

/** Seconds a client is asked to wait when the database is unavailable. */
const retryAfterSeconds = 2;

/**
 * True when the database could not be reached or is shutting down (PostgreSQL connection
 * errors and SQLSTATE classes 08 and 57P, pool time-outs, SQLite lock time-outs), or takes no
 * writes (25006: a standby, or a cluster made read-only, as during a failover): the request may
 * succeed later, so the client gets 503 with Retry-After instead of a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'SQLITE_BUSY', '53300', '57014', readOnlySqlState].includes(code) ||
    /^08/.test(code) || /^57P0/.test(code) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Query read timeout/i.test(message)
  );
}

/**
 * PostgreSQL refusing text it cannot store: 22021 (character_not_in_repertoire: a NUL in text)
 * and 22P05 (untranslatable_character: a \u0000 escape in json/jsonb). Input is checked before
 * it gets here (`assertStorableText` on bodies, data_json and query values); this is the safety
 * net for any path that check misses, so the client's fault stays a 400 and not a 500.
 */
const unstorableTextCodes = ['22021', '22P05'];

/**
 * The database has no room for the write: SQLite's SQLITE_FULL (the disk is full, or the file
 * reached its `maxSizeBytes`) and PostgreSQL's 53100 (disk_full). The transaction rolled back, so
 * nothing of the request was stored; it answers 507, which no retry soon will change.
 */
export function isDatabaseFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === '53100';
}

/**
 * SQLite could not read or write its files: an I/O error (SQLITE_IOERR and its extended codes:
 * a failing disk, a filesystem remounted read-only, or a file moved away, after which read-only
 * connections fail SQLITE_IOERR_FSTAT), a file it cannot open, or the extended SQLITE_READONLY_*
 * codes of files it cannot lock or recover. The server's storage failed, not the request. The
 * bare SQLITE_READONLY (a write on a read-only connection) stays a 500: that is a bug here.
 */
function isStorageFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY_'));
}

/** Turns anything thrown below into a status and an error body. */
export function toErrorResponse(error: unknown): { status: number; body: { message: string; errors?: FieldErrors }; headers?: Record<string, string>; internal: boolean } {
  if (error instanceof ApiError) {
    return { status: error.status, body: { message: error.message, ...(error.errors ? { errors: error.errors } : {}) }, headers: error.headers, internal: false };
  }
  const e = error as { code?: unknown; field?: unknown; status?: unknown; statusCode?: unknown; expose?: unknown; message?: unknown; name?: unknown };
  if (typeof e?.code === 'string' && e.name === 'MulterError') {
    const known = multipartErrors[e.code] ?? { status: 400, message: String(e.message) };
    const errors = typeof e.field === 'string' ? { [e.field]: known.message } : undefined;
    return { status: known.status, body: { message: known.message, ...(errors ? { errors } : {}) }, internal: false };
  }
  const status = Number(e?.status ?? e?.statusCode);
  // busboy reports a malformed body ("Unexpected end of form", "Malformed part header") as a plain Error.
  if (typeof e?.message === 'string' && /Unexpected end of form|Malformed part header|Multipart: Boundary not found|Malformed urlencoded form/i.test(e.message)) {
    return { status: 400, body: { message: `Malformed multipart body: ${e.message}` }, internal: false };
  }
  if (status >= 400 && status < 500) {
    const message = e.expose !== false && typeof e.message === 'string' ? e.message : 'Bad request';
    return { status, body: { message }, internal: false };
  }
  if (typeof e?.code === 'string' && unstorableTextCodes.includes(e.code)) {
    // Still logged as internal: it means an input check is missing somewhere.
    return { status: 400, body: { message: 'Text that cannot be stored: NUL characters and lone surrogates are refused' }, internal: true };
  }
  if (isDatabaseFull(error)) {
    return { status: 507, body: { message: 'Insufficient storage: the database is full, and nothing of this request was stored' }, internal: true };
  }
  // No Retry-After for the two below: an operator must act (restart, or mend the disk) first.
  if (e?.code === databaseMovedCode) {
    return { status: 503, body: { message: 'The database is unavailable: its file was moved or deleted while the server ran, and nothing of this request was stored' }, internal: true };
  }
  if (isStorageFault(error)) {
    return { status: 503, body: { message: 'The database is unavailable: reading or writing its file failed, and nothing of this request was stored' }, internal: true };
  }
  if (isDatabaseUnavailable(error)) {
    return { status: 503, body: { message: 'The database is unavailable; try again shortly' }, headers: { 'Retry-After': String(retryAfterSeconds) }, internal: true };
  }
  return { status: 500, body: { message: 'Internal server error' }, internal: true };
}

/** The body bytes discarded before an error answer when the route set no `ctx.state.maxBodyBytes`. */
const defaultDiscardBytes = 1024 * 1024;

/**
 * The one error middleware: catches, logs internal causes, renders the JSON error shape. A
 * client that closed its connection half-way is no server fault: logged at info level as
 * `client closed request` (status 499 in the log, as nginx writes it), nothing answered.
 */
export function errorMiddleware(logger: Logger) {
  return async function renderErrors(ctx: Context, next: Next) {
    try {
      await next();
    } catch (error) {
      const named = requestIdOf(ctx);
      if (clientClosed(ctx.req)) {
        ctx.state.clientClosed = true;
        logger.info({ msg: 'client closed request', method: ctx.method, path: ctx.path, ...named, status: 499, error: String((error as Error)?.message ?? error) });
        return;
      }
      const { status, body, headers, internal } = toErrorResponse(error);
      if (internal) logger.error({ msg: 'internal error', method: ctx.method, path: ctx.path, ...named, error: describe(error) });
      ctx.status = status;
      ctx.type = 'application/json';
      // A server-side failure names its request, whose cause is in the log: a client that keeps
      // only the body (a CI job's output) can still quote it to whoever runs the server.
      ctx.body = JSON.stringify(internal && status >= 500 && named.request_id ? { ...body, message: `${body.message} (request ${named.request_id})` } : body);
      if (headers) ctx.set(headers);
      // An unread body is read and discarded (bounded) first, so the client gets to read this
      // answer instead of failing its write; beyond the bound the connection closes.
      if (!(await discardBody(ctx.req, (ctx.state as { maxBodyBytes?: number }).maxBodyBytes ?? defaultDiscardBytes))) ctx.set('Connection', 'close');
    }
  };
}

/**
 * The request's id for log lines, when the app gave it one (`ctx.state.requestId`: the
 * standalone app does; a host app that mounts the router may).
 */
export function requestIdOf(ctx: Context): { request_id?: string } {
  const id = (ctx.state as { requestId?: unknown }).requestId;
  return typeof id === 'string' ? { request_id: id } : {};
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
