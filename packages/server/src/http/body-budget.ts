/**
 * Request bodies are held in memory until their request is answered (an attachment is stored
 * as one value), so the bytes of bodies being received and stored at once are bounded: peak
 * memory is set by configuration, not by how many clients upload together.
 */
import type { Context, Next } from 'koa';
import { ApiError } from './errors.ts';
import { declaredLength, grantContinue } from './unread-body.ts';

/** The default of `maxUploadBytesInFlight`: 256 MiB. */
export const defaultMaxBodyBytesInFlight = 256 * 1024 * 1024;

/** Seconds a client refused for lack of room is asked to wait. */
const retryAfterSeconds = 1;

/** A count of bytes that requests take and give back. */
export class ByteBudget {
  #inUse = 0;
  constructor(readonly limit: number) {
    if (!(Number.isSafeInteger(limit) && limit > 0)) throw new RangeError(`a byte budget must be a positive whole number, not ${limit}`);
  }

  get inUse(): number {
    return this.#inUse;
  }

  /**
   * Takes `bytes` when they fit; false otherwise. A body larger than the whole budget is let in
   * when nothing else is held, so that every body the limits accept can be sent.
   */
  tryTake(bytes: number): boolean {
    if (this.#inUse + bytes > this.limit && this.#inUse > 0) return false;
    this.#inUse += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#inUse -= bytes;
  }
}

/**
 * Middleware run after the token was checked and before the body is read: refuses with 413 a
 * body declared larger than `maxBodyBytes`; holds the declared length (or `maxBodyBytes` for a
 * chunked body) in `budget` until the answer is sent, or answers 503 with `Retry-After` when it
 * does not fit; then tells a client waiting for `100 Continue` to send.
 */
export function holdBodyBytes(budget: ByteBudget, maxBodyBytes: number) {
  return async function holdBody(ctx: Context, next: Next) {
    const declared = declaredLength(ctx.req);
    if (declared !== undefined && declared > maxBodyBytes) throw new ApiError(413, `Body too large: at most ${maxBodyBytes} bytes`);
    const bytes = declared ?? maxBodyBytes;
    if (!budget.tryTake(bytes)) {
      throw new ApiError(503, 'The server is receiving as many uploads as it may hold; try again shortly', undefined, {
        'Retry-After': String(retryAfterSeconds),
      });
    }
    // Given back once the answer is sent or the connection closed: the body is held until then.
    ctx.res.once('close', () => budget.give(bytes));
    grantContinue(ctx.req, ctx.res);
    return next();
  };
}
