/**
 * The standalone server: a Koa app with request logging, JSON 404/405 answers and the router.
 * Embedders mount `createRouter()` in their own app instead.
 */
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { ApiError, errorMiddleware, requestIdOf } from './http/errors.ts';
import { probes } from './http/health.ts';
import { storeTokens } from './auth.ts';
import cluster from 'node:cluster';
import type { MetricsMode } from './metrics-mode.ts';
import type { MetricsOptions } from './metrics.ts';
import { createLogger, debugEnabled } from './logger.ts';
import { storeCallLogger } from './store-call-logger.ts';
import { createRouter, type RouterOptions } from './router.ts';
import type { ConsoleOptions } from './console/index.ts';
import { FailedAuthLimit } from './http/failed-auth-limit.ts';
import { loadedOnFirstRequest } from './http/loaded-on-first-request.ts';

export interface AppOptions extends RouterOptions {
  /**
   * Behind one reverse proxy: trust its `X-Forwarded-Proto` and `X-Forwarded-Host` (the
   * console's origin check, its cookie's `Secure`, absolute links) and the last address of
   * `X-Forwarded-For` (the limit on failed token checks). Off by default: then these headers are
   * ignored, as any client could send them.
   */
  proxy?: boolean;
  /** Prometheus metrics at `GET /metrics` (metrics.ts): off by default; `on` by default in `startServer`, and `serve` reads TRAILPROOF_METRICS. */
  metrics?: MetricsMode;
  /** The console (pages for people) at `/ui`, with `/` redirecting there; `false` leaves it out. */
  console?: false | Omit<ConsoleOptions, 'store' | 'auth' | 'logger' | 'failedAuthLimit' | 'failedTokenChecksPerMinute'>;
  /** README badges at `/badges/...` (badges/badges.ts): served unless false. */
  badges?: boolean;
  /** Where the metrics are registered (a prom-client `Registry`); one of the app's own by default. */
  metricsRegistry?: MetricsOptions['registry'];
}

/** How writing an answer fails when its client closed the connection first. */
const clientGoneCodes = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

/** A request id a client or a proxy sent that is fit for the log: short, without spaces or quotes. */
const acceptedRequestId = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * A Koa app serving the API: one JSON log line per request, tokens never logged. Each request
 * has an id: the `X-Request-Id` it came with (from a proxy, say) when that is fit for the log,
 * else a new one; it is answered in `X-Request-Id` and is in every log line of the request, so
 * that a client told "Internal server error" can name the request whose cause is logged.
 * With a logger at debug level, each store call is logged too, with its request's id.
 */
export function createApp(options: AppOptions): Koa {
  const logger = options.logger ?? createLogger();
  const storeCalls = debugEnabled(logger) ? storeCallLogger(options.store, logger) : null;
  const store = storeCalls?.store ?? options.store;
  // One address of X-Forwarded-For: the one the proxy added; those before it are the client's to forge.
  const app = new Koa({ proxy: options.proxy ?? false, maxIpsCount: 1 });
  const failedAuthLimit = options.failedAuthLimit ?? new FailedAuthLimit({ perMinute: options.failedTokenChecksPerMinute });
  const router = createRouter({ ...options, store, logger, failedAuthLimit });
  app.silent = true;
  app.on('error', (error: unknown, ctx?: Koa.Context) => {
    // A response stream cut off because its client closed the connection is no server fault.
    if (ctx?.req.socket.destroyed && clientGoneCodes.has(String((error as { code?: unknown })?.code))) {
      logger.info({ msg: 'client closed response', method: ctx.method, path: ctx.path, ...requestIdOf(ctx), status: 499 });
      return;
    }
    logger.error({ msg: 'unhandled error', error: String(error) });
  });

  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    const sent = ctx.get('x-request-id');
    const requestId = acceptedRequestId.test(sent) ? sent : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    ctx.set('X-Content-Type-Options', 'nosniff');
    try {
      await (storeCalls ? storeCalls.within(requestId, next) : next());
    } finally {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      // A client gone before its answer gets none: 499 ("client closed request", as nginx logs
      // it), with the status it was not sent when the request was served (a write stored).
      const aborted = ctx.state.clientClosed === true;
      const gone = aborted || ctx.req.socket.destroyed;
      const status = gone ? { status: 499, client_closed: true, ...(aborted ? {} : { unsent_status: ctx.status }) } : { status: ctx.status };
      logger.info({ msg: 'request', method: ctx.method, path: ctx.path, ...status, duration_ms: Math.round(durationMs * 100) / 100, request_id: requestId });
    }
  });
  app.use(errorMiddleware(logger));
  app.use(probes(store, logger, options.health));
  if (options.metrics && options.metrics !== 'off') {
    const { metrics: mode, auth = storeTokens(store), metricsRegistry: registry } = options;
    const load = async () => (await import('./metrics.ts')).metricsMiddleware(mode, auth, { store, registry, failedAuthLimit });
    // prom-client loads on the first request it measures; a pool's worker loads it at once, as the
    // primary asks every worker for its metrics whenever one is scraped.
    app.use(loadedOnFirstRequest(null, load, { now: cluster.isWorker }));
  }
  // Unmatched paths: a JSON 404 (the router's allowedMethods answers 405/501 in JSON itself).
  app.use(async (ctx, next) => {
    await next();
    if (ctx.body == null && ctx.status === 404 && !ctx.state.clientClosed) throw new ApiError(404, `No such route: ${ctx.method} ${ctx.path}`);
  });
  if (options.badges !== false) {
    const badges = { store, auth: options.auth, logger, failedAuthLimit };
    app.use(loadedOnFirstRequest('/badges', async () => (await import('./badges/badges.ts')).createBadges(badges).routes()));
  }
  app.use(router.routes());
  app.use(router.allowedMethods());
  if (options.console !== false) {
    const ui = { ...options.console, store, auth: options.auth, logger, apiPrefix: options.prefix, failedAuthLimit };
    const home = options.console?.prefix ?? '/ui';
    app.use(loadedOnFirstRequest(home, async () => (await import('./console/index.ts')).createConsole(ui).routes()));
    app.use(async (ctx, next) => {
      if (ctx.path !== '/' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
      ctx.redirect(home);
    });
  }
  return app;
}
