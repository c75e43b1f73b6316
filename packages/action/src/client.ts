/**
 * A small HTTP client for the API v2: bearer token, time-outs, and retries with exponential
 * backoff on network errors, 429 (honouring Retry-After) and 5xx, never on other 4xx (a refused
 * or expired token is final: 401 and 403 are reported at once with the server's message). A
 * failure carries the server's own `{"message", "errors"}` text, and the id the server gave the
 * request (`X-Request-Id`), which names the request in the server's log.
 */
import { payloadOf, send, type Answer } from './http-send.ts';

export interface ClientOptions {
  serverUrl: string;
  apiToken: string;
  /** Per attempt; 30 s by default. */
  timeoutMs?: number;
  /** Attempts in all, the first included; 4 by default. */
  attempts?: number;
  /** First backoff delay; doubles each retry, ±25% jitter; 500 ms by default. */
  backoffMs?: number;
  /** Longest wait before a retry, whether from the backoff or a Retry-After header; 60 s by default. */
  maxDelayMs?: number;
  /** Told about each retry (for logs). */
  onRetry?: (message: string) => void;
}

/** An answer the server gave that was not a success. */
export class ApiRequestError extends Error {
  override readonly name = 'ApiRequestError';
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Record<string, string>,
    /** The server's `X-Request-Id` for the request, when it sent one. */
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export interface ApiClient {
  /** Sends a request to `/api/v2` + `path`; resolves with the JSON body of a 2xx answer. */
  request(method: string, path: string, body?: FormData | object): Promise<{ status: number; body: unknown }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createClient(options: ClientOptions): ApiClient {
  const attempts = options.attempts ?? 4;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const backoffMs = options.backoffMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 60_000;

  return {
    async request(method, path, body) {
      const url = `${options.serverUrl}/api/v2${path}`;
      const headers: Record<string, string> = { authorization: `Bearer ${options.apiToken}`, accept: 'application/json' };
      const payload = body === undefined ? undefined : await payloadOf(body);
      /** The answer as the client's result, or an ApiRequestError for any status but 2xx. */
      const settle = (answer: Answer) => {
        let parsed: unknown = answer.text;
        try {
          parsed = answer.text ? JSON.parse(answer.text) : null;
        } catch {
          // not JSON: keep the text
        }
        if (answer.status >= 200 && answer.status < 300) return { status: answer.status, body: parsed };
        const sentId = String(answer.headers['x-request-id'] ?? '');
        // Shown in the job's log: only an id that looks like one (no spaces, no markup).
        const requestId = /^[A-Za-z0-9._:-]{1,100}$/.test(sentId) ? sentId : undefined;
        const errors = (parsed as { errors?: Record<string, string> } | null)?.errors ?? undefined;
        return new ApiRequestError(answer.status, describe(method, path, answer.status, parsed, requestId), errors, requestId);
      };
      let lastError: unknown;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        let retryAfterMs: number | undefined;
        try {
          const answer = await send(url, method, headers, payload, timeoutMs);
          const settled = settle(answer);
          if (!(settled instanceof ApiRequestError)) return settled;
          if (!retried(settled.status)) throw settled;
          lastError = settled;
          retryAfterMs = parseRetryAfter(String(answer.headers['retry-after'] ?? ''), Date.now());
        } catch (error) {
          if (error instanceof ApiRequestError && !retried(error.status)) throw error;
          lastError = error;
          if (payload && cutOff(error)) {
            // The upload was cut off with no answer read. A server that refuses the request before
            // reading the body does this: ask again without the body, and a refusal is final.
            const probe = await send(url, method, headers, undefined, timeoutMs).then(settle, () => undefined);
            if (probe instanceof ApiRequestError && (probe.status === 401 || probe.status === 403)) throw probe;
          }
        }
        if (attempt < attempts) {
          const delay = Math.min(maxDelayMs, retryAfterMs ?? backoffMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5));
          options.onRetry?.(`${method} ${path} failed (${errorText(lastError)}); retry ${attempt} of ${attempts - 1} in ${Math.round(delay)} ms`);
          await sleep(delay);
        }
      }
      if (lastError instanceof ApiRequestError) throw lastError;
      const cause = errorText(lastError);
      // A server or proxy that refuses a request before reading its body closes the connection under the upload.
      const hint =
        payload && cutOff(lastError)
          ? ' (the server closed the connection while the request was being sent, without an answer the client could read: a server or proxy that refuses the request, e.g. an expired or wrong api-token or a body over its size limit, does this)'
          : '';
      throw new Error(`${method} ${url} failed after ${attempts} attempts: ${cause}${hint}`);
    },
  };
}

/** Statuses worth another attempt: 429 (too many requests) and 5xx; never another 4xx. */
const retried = (status: number) => status === 429 || status >= 500;
/** The connection closed under the request (the server stopped reading it). */
const cutOff = (error: unknown) => ['EPIPE', 'ECONNRESET'].includes(errorText(error));

/**
 * A Retry-After header as milliseconds from `now`: delay-seconds (`120`) or an HTTP date (a date
 * in the past is 0). Absent or unreadable: undefined, so the caller backs off instead (a missing
 * header must not mean "retry at once").
 */
function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Every HTTP-date form starts with the day's name; Date.parse alone would take '1.5' for a date.
  if (!/^(mon|tue|wed|thu|fri|sat|sun)[a-z]*,? /i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describe(method: string, path: string, status: number, body: unknown, requestId: string | undefined): string {
  const b = body as { message?: unknown; errors?: Record<string, unknown> } | null;
  const message = typeof b?.message === 'string' ? b.message : typeof body === 'string' && body ? body.slice(0, 500) : 'no message';
  const fields =
    b?.errors && typeof b.errors === 'object'
      ? Object.entries(b.errors)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join('; ')
      : '';
  return `${method} ${path} answered ${status}: ${message}${fields ? ` (${fields})` : ''}${requestId ? ` [request ${requestId}]` : ''}`;
}

function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
