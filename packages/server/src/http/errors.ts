/**
 * Errors are thrown values with a `status`; one middleware renders every one of them as
 * `{ "message": ..., "errors": {...} }`. A 5xx logs its cause and tells the client nothing internal
 * but the request's id (when the app gave it one), which names the cause's log line.
 */
import type { Context, Next } from 'koa';
import type { FieldErrors } from '@trailproof/schema';
import type { Logger } from '../logger.ts';
import { storeErrorKind, type StoreErrorKind } from '../store/errors.ts';
import { clientClosed, discardBody, lingerAfterAnswer } from './unread-body.ts';

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

const unavailable = { status: 503, message: 'The database is unavailable; try again shortly', retry: true };
const internal = { status: 500, message: 'Internal server error' };

/**
 * What the client is told of each kind of store failure (store/errors.ts). Unavailable, busy and
 * read-only may pass (a failover, a burst): 503 with Retry-After. A full database answers 507,
 * which no retry soon will change; a moved file or failing storage answer 503 without Retry-After,
 * since an operator must act (restart, or mend the disk) first. Text the database refused means
 * an input check is missing somewhere: the client's fault stays a 400 (still logged as internal).
 * A conflict or missing migration the store did not resolve is a fault here: 500.
 */
const storeFailures: Record<StoreErrorKind, { status: number; message: string; retry?: boolean }> = {
  unavailable: unavailable,
  busy: unavailable,
  'read-only': unavailable,
  full: { status: 507, message: 'Insufficient storage: the database is full, and nothing of this request was stored' },
  moved: { status: 503, message: 'The database is unavailable: its file was moved or deleted while the server ran, and nothing of this request was stored' },
  storage: { status: 503, message: 'The database is unavailable: reading or writing its file failed, and nothing of this request was stored' },
  'unstorable-text': { status: 400, message: 'Text that cannot be stored: NUL characters and lone surrogates are refused' },
  conflict: internal,
  'migrations-pending': internal,
  starting: unavailable,
};

/** True when the database could not be reached, is too busy, or takes no writes: the request may succeed later. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const kind = storeErrorKind(error);
  return kind !== undefined && storeFailures[kind].retry === true;
}

/** Turns anything thrown below into a status and an error body. */
export function toErrorResponse(error: unknown): {
  status: number;
  body: { message: string; errors?: FieldErrors };
  headers?: Record<string, string>;
  internal: boolean;
} {
  if (error instanceof ApiError) {
    return {
      status: error.status,
      body: { message: error.message, ...(error.errors ? { errors: error.errors } : {}) },
      headers: error.headers,
      internal: false,
    };
  }
  const e = error as { code?: unknown; field?: unknown; status?: unknown; statusCode?: unknown; expose?: unknown; message?: unknown; name?: unknown };
  if (typeof e?.code === 'string' && e.name === 'MulterError') {
    const known = multipartErrors[e.code] ?? { status: 400, message: String(e.message) };
    const errors = typeof e.field === 'string' ? { [e.field]: known.message } : undefined;
    return { status: known.status, body: { message: known.message, ...(errors ? { errors } : {}) }, internal: false };
  }
  const status = Number(e?.status ?? e?.statusCode);
  // busboy reports a malformed body ("Unexpected end of form", "Malformed part header") as a plain Error.
  if (
    typeof e?.message === 'string' &&
    /Unexpected end of form|Malformed part header|Multipart: Boundary not found|Malformed urlencoded form/i.test(e.message)
  ) {
    return { status: 400, body: { message: `Malformed multipart body: ${e.message}` }, internal: false };
  }
  if (status >= 400 && status < 500) {
    const message = e.expose !== false && typeof e.message === 'string' ? e.message : 'Bad request';
    return { status, body: { message }, internal: false };
  }
  // Driver errors a plugin met outside the store are classified the same way.
  const kind = storeErrorKind(error);
  if (kind) {
    const { status, message, retry } = storeFailures[kind];
    return { status, body: { message }, ...(retry ? { headers: { 'Retry-After': String(retryAfterSeconds) } } : {}), internal: true };
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
        logger.info({
          msg: 'client closed request',
          method: ctx.method,
          path: ctx.path,
          ...named,
          status: 499,
          error: String((error as Error)?.message ?? error),
        });
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
      // answer instead of failing its write; beyond the bound the connection closes after it,
      // lingering while the client still sends.
      if (!(await discardBody(ctx.req, (ctx.state as { maxBodyBytes?: number }).maxBodyBytes ?? defaultDiscardBytes))) {
        ctx.set('Connection', 'close');
        lingerAfterAnswer(ctx.req);
      }
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
