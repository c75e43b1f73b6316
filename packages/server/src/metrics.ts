/**
 * Prometheus metrics at `GET /metrics` of the standalone app (prom-client): requests by
 * operation, method and status with their latency, attachment bytes stored, the store's write
 * batches (size, wait, time, commit) and PostgreSQL pool, and the process's own (CPU, memory,
 * heap, event-loop lag, handles). Labels never carry an organisation, flow or trail name: an
 * operation is its contract id (`beginTrail`), or the route's pattern.
 *
 * `TRAILPROOF_METRICS`: `on` (the default: no token), `token` (a token of any organisation,
 * read-only will do), `off` (no /metrics, nothing collected).
 */
import type { Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Authenticator } from './auth.ts';
import { ApiError } from './http/errors.ts';
import { FailedAuthLimit } from './http/failed-auth-limit.ts';
import { poolMetrics } from './metrics-pool.ts';
import type { UploadedFile } from './plugin.ts';
import type { PoolUse, Store } from './store/types.ts';

import type { MetricsMode } from './metrics-mode.ts';

export { metricsModeOf, metricsModes, type MetricsMode } from './metrics-mode.ts';

export interface MetricsOptions {
  /** The store whose write batches and pool are measured. */
  store?: Pick<Store, 'onWriteBatch' | 'poolUse'>;
  /**
   * Where the metrics are registered. By default each app has a registry of its own with the
   * process's metrics in it, so that several apps in one process (tests) do not share counts;
   * a registry passed in gets the app's metrics only.
   */
  registry?: Registry;
  /** The table of failed token checks (`token` mode), shared with the API by `createApp`. */
  failedAuthLimit?: FailedAuthLimit;
}

/** The app's metrics middleware: times every request after it and answers `GET /metrics`. */
export function metricsMiddleware(mode: Exclude<MetricsMode, 'off'>, auth: Authenticator, options: MetricsOptions = {}): Middleware {
  const registry = options.registry ?? new Registry();
  if (!options.registry) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  if (options.store) storeMetrics(options.store, registry);
  const requests = new Histogram({
    name: 'trailproof_http_request_duration_seconds',
    help: 'Requests by operation (the contract id, or the route pattern), method and status, and how long they took',
    labelNames: ['operation', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const attachments = new Counter({
    name: 'trailproof_attachment_bytes_total',
    help: 'Bytes of attachments in requests that were answered with a success',
    labelNames: ['operation'] as const,
    registers: [registry],
  });

  // In a `serve --workers` pool, each scrape answers for every worker (metrics-pool.ts).
  const authLimit = options.failedAuthLimit ?? new FailedAuthLimit();
  const scrape = poolMetrics(registry) ?? (() => registry.metrics());
  return async (ctx, next) => {
    if (ctx.path === '/metrics' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      if (mode === 'token' && !(await authLimit.authenticate(ctx, auth, ctx.get('authorization') || undefined))) {
        throw new ApiError(401, 'Metrics need an API token of any organisation', undefined, { 'WWW-Authenticate': 'Bearer' });
      }
      ctx.set('Cache-Control', 'no-store');
      ctx.type = registry.contentType;
      ctx.body = await scrape();
      return;
    }
    const started = process.hrtime.bigint();
    let status: number | undefined;
    try {
      await next();
    } catch (error) {
      // Rendered by the error middleware before this one: its status is the answer's.
      status = Number((error as { status?: unknown } | null)?.status) || 500;
      throw error;
    } finally {
      const operation = String(ctx._matchedRouteName ?? ctx._matchedRoute ?? 'unmatched');
      requests.observe({ operation, method: ctx.method, status: String(status ?? ctx.status) }, Number(process.hrtime.bigint() - started) / 1e9);
      const files = (ctx.state.multipart as { files?: Partial<Record<string, UploadedFile>> } | undefined)?.files;
      if (files && ctx.status < 300) {
        const bytes = Object.values(files).reduce((sum, file) => sum + (file?.size ?? 0), 0);
        if (bytes) attachments.inc({ operation }, bytes);
      }
    }
  };
}

/**
 * The store's write batches as histograms by writer (`attestations`, `artifacts`, `transactions`; see
 * store/write-batches.ts), and the PostgreSQL pool's connections as gauges read at each scrape.
 */
function storeMetrics(store: Pick<Store, 'onWriteBatch' | 'poolUse'>, registry: Registry): void {
  const seconds = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
  const labelNames = ['writer'] as const;
  const registers = [registry];
  const size = new Histogram({
    name: 'trailproof_write_batch_size',
    help: 'Writes committed together in one batch',
    labelNames,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers,
  });
  const wait = new Histogram({
    name: 'trailproof_write_batch_wait_seconds',
    help: "How long each write waited, from being queued to its batch's start",
    labelNames,
    buckets: seconds,
    registers,
  });
  const duration = new Histogram({
    name: 'trailproof_write_batch_duration_seconds',
    help: "A batch's time, from its start to its COMMIT returning",
    labelNames,
    buckets: seconds,
    registers,
  });
  const commit = new Histogram({ name: 'trailproof_write_batch_commit_seconds', help: "A batch's COMMIT alone", labelNames, buckets: seconds, registers });
  store.onWriteBatch?.((batch) => {
    const labels = { writer: batch.writer };
    size.observe(labels, batch.size);
    for (const waited of batch.waits) wait.observe(labels, waited);
    duration.observe(labels, batch.seconds);
    commit.observe(labels, batch.commitSeconds);
  });
  const { poolUse } = store;
  if (!poolUse) return;
  const gauge = (name: string, help: string, read: (use: PoolUse) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(poolUse()));
      },
    });
  gauge('trailproof_db_pool_connections', "Connections of the database pool open now, idle or in use (the health check's own not counted)", (use) => use.total);
  gauge('trailproof_db_pool_idle_connections', 'Connections of the database pool open and idle now', (use) => use.idle);
  gauge('trailproof_db_pool_waiting_queries', 'Queries waiting for a connection of the database pool now', (use) => use.waiting);
  gauge('trailproof_db_pool_max_connections', 'Most connections the database pool opens', (use) => use.max);
}
