/**
 * The probes. `GET {prefix}/health` and the standalone app's `GET /readyz`: whether this process
 * can serve, for load balancers and orchestrators. `GET /livez`: whether the process answers at
 * all, without touching the database, so that a database failover does not get it restarted.
 *
 * `GET {prefix}/health`: whether this process can serve, for load balancers and orchestrators.
 * It needs no token and tells nothing about the data: 200 `{"status":"ok"}` once the database
 * answered a read (on PostgreSQL, and said it takes writes), 503 in the API's error shape (with
 * `Retry-After`) when it failed, did not answer in time, takes no writes (a standby), or (SQLite)
 * its file is no longer at its path. The cause goes to the log, never to the caller.
 */
import type { Middleware } from 'koa';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/types.ts';
import { ApiError, requestIdOf } from './errors.ts';
import { probeOkBody } from './probe-body.ts';
import { storeErrorKind, type StoreErrorKind } from '../store/errors.ts';

export interface HealthCheckOptions {
  /** How long the database may take to answer; 2 s by default (load balancers often wait 5). */
  timeoutMs?: number;
}

/** Seconds a prober is asked to wait before it asks again. */
const retryAfterSeconds = 2;

/** What `errors.database` says of a failed check, by the kind of store failure. */
const failures: Partial<Record<StoreErrorKind, string>> = {
  'read-only': 'takes no writes',
  moved: 'its file was moved or deleted while the server ran; restart the server',
  'migrations-pending': 'lacks migrations this server needs',
  starting: 'is starting',
};

export function healthCheck(store: Pick<Store, 'checkDatabase'>, logger: Logger, options: HealthCheckOptions = {}): Middleware {
  const { timeoutMs = 2_000 } = options;
  // One check at a time: probes that come while one is still waiting (a database that hangs)
  // share its answer instead of each holding a connection of the pool until its statement times out.
  let running: Promise<void> | null = null;
  const check = () => (running ??= store.checkDatabase().finally(() => (running = null)));
  return async (ctx) => {
    const problem = await withinTime(check(), timeoutMs);
    if (problem) {
      logger.error({
        msg: 'health check failed',
        ...requestIdOf(ctx),
        error: problem.kind === 'failed' ? String(problem.error) : `no answer within ${timeoutMs} ms`,
      });
      const database =
        problem.kind === 'timeout' ? `did not answer within ${timeoutMs} ms` : (failures[storeErrorKind(problem.error) ?? 'unavailable'] ?? 'did not answer');
      throw new ApiError(
        503,
        'Not ready: the database is unavailable',
        { database },
        { 'Retry-After': String(retryAfterSeconds), 'Cache-Control': 'no-store' },
      );
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/json';
    ctx.body = probeOkBody;
  };
}

/**
 * `GET /livez` and `GET /readyz` at the app's root (HEAD too), for a Kubernetes probe or a load
 * balancer's check: liveness answers from the process alone; readiness is the health check.
 * `GET /ready` is readiness too, where `kosli status` asks for it. Other paths pass on.
 */
export function probes(store: Pick<Store, 'checkDatabase'>, logger: Logger, options: HealthCheckOptions = {}): Middleware {
  const ready = healthCheck(store, logger, options);
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/livez') {
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'application/json';
      ctx.body = probeOkBody;
      return;
    }
    if (ctx.path === '/readyz' || ctx.path === '/ready') return ready(ctx, next);
    return next();
  };
}

type Problem = { kind: 'failed'; error: unknown } | { kind: 'timeout' };

/** Null when `check` resolved within `ms`; otherwise what went wrong (a late answer is ignored). */
async function withinTime(check: Promise<unknown>, ms: number): Promise<Problem | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Problem>((resolve) => (timer = setTimeout(() => resolve({ kind: 'timeout' }), ms)));
  try {
    return await Promise.race([
      check.then(
        () => null,
        (error: unknown): Problem => ({ kind: 'failed', error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
