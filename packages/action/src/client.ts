/**
 * A small HTTP client for the API v2: bearer token, time-outs, and retries with exponential
 * backoff on network errors, 429 (honouring Retry-After) and 5xx, never on other 4xx (a refused
 * or expired token is final: 401 and 403 are reported at once with the server's message). A
 * failure carries the server's own `{"message", "errors"}` text, and the id the server gave the
 * request (`X-Request-Id`), which names the request in the server's log.
 */

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
      let lastError: unknown;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        let retryAfterMs: number | undefined;
        try {
          const headers: Record<string, string> = { authorization: `Bearer ${options.apiToken}`, accept: 'application/json' };
          let payload: FormData | string | undefined;
          if (body instanceof FormData) payload = body;
          else if (body !== undefined) {
            headers['content-type'] = 'application/json';
            payload = JSON.stringify(body);
          }
          const response = await fetch(url, { method, headers, body: payload, signal: AbortSignal.timeout(timeoutMs) });
          const text = await response.text();
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            // not JSON: keep the text
          }
          if (response.ok) return { status: response.status, body: parsed };
          const sentId = response.headers.get('x-request-id') ?? '';
          // Shown in the job's log: only an id that looks like one (no spaces, no markup).
          const requestId = /^[A-Za-z0-9._:-]{1,100}$/.test(sentId) ? sentId : undefined;
          const message = describe(method, path, response.status, parsed, requestId);
          const errors = (parsed as { errors?: Record<string, string> } | null)?.errors ?? undefined;
          const error = new ApiRequestError(response.status, message, errors, requestId);
          if (response.status !== 429 && response.status < 500) throw error;
          lastError = error;
          retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
        } catch (error) {
          if (error instanceof ApiRequestError && error.status !== 429 && error.status < 500) throw error;
          lastError = error;
        }
        if (attempt < attempts) {
          const delay = Math.min(maxDelayMs, retryAfterMs ?? backoffMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5));
          options.onRetry?.(`${method} ${path} failed (${errorText(lastError)}); retry ${attempt} of ${attempts - 1} in ${Math.round(delay)} ms`);
          await sleep(delay);
        }
      }
      if (lastError instanceof ApiRequestError) throw lastError;
      const cause = errorText(lastError);
      // A server that refuses a request (a bad or expired token) before reading its body closes the connection under the upload.
      const hint = body !== undefined && (cause === 'EPIPE' || cause === 'ECONNRESET')
        ? ' (the server closed the connection while the request was being sent, without an answer the client could read: a server or proxy that refuses the request, e.g. an expired or wrong api-token or a body over its size limit, does this)'
        : '';
      throw new Error(`${method} ${url} failed after ${attempts} attempts: ${cause}${hint}`);
    },
  };
}

/**
 * A Retry-After header as milliseconds from `now`: delay-seconds (`120`) or an HTTP date (a date
 * in the past is 0). Absent or unreadable: undefined, so the caller backs off instead (a missing
 * header must not mean "retry at once").
 */
function parseRetryAfter(header: string | null, now: number): number | undefined {
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
  const fields = b?.errors && typeof b.errors === 'object' ? Object.entries(b.errors).map(([k, v]) => `${k}: ${String(v)}`).join('; ') : '';
  return `${method} ${path} answered ${status}: ${message}${fields ? ` (${fields})` : ''}${requestId ? ` [request ${requestId}]` : ''}`;
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
