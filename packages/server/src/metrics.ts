/**
 * Prometheus metrics at `GET /metrics` of the standalone app (prom-client): requests by
 * operation, method and status with their latency, attachment bytes stored, and the process's
 * own (CPU, memory, heap, event-loop lag, handles). Labels never carry an organisation, flow or
 * trail name: an operation is its contract id (`beginTrail`), or the route's pattern.
 *
 * `TRAILPROOF_METRICS`: `on` (the default: no token), `token` (a token of any organisation,
 * read-only will do), `off` (no /metrics, nothing collected).
 */
import type { Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Authenticator } from './auth.ts';
import { ApiError } from './http/errors.ts';
import type { UploadedFile } from './plugin.ts';

export type MetricsMode = 'off' | 'on' | 'token';
export const metricsModes: readonly MetricsMode[] = ['off', 'on', 'token'];

/** The mode `TRAILPROOF_METRICS` names (`on` when unset); throws on another value. */
export function metricsModeOf(value: string | undefined): MetricsMode {
  const mode = (value ?? 'on').trim().toLowerCase();
  if (!metricsModes.includes(mode as MetricsMode)) throw new RangeError(`TRAILPROOF_METRICS must be one of ${metricsModes.join(', ')}, not '${value}'`);
  return mode as MetricsMode;
}

/**
 * The app's metrics middleware: times every request after it and answers `GET /metrics`.
 * Each app has a registry of its own, so that several apps in one process (tests) do not share counts.
 */
export function metricsMiddleware(mode: Exclude<MetricsMode, 'off'>, auth: Authenticator): Middleware {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
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

  return async (ctx, next) => {
    if (ctx.path === '/metrics' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      if (mode === 'token' && !(await auth.authenticate(ctx.get('authorization')))) {
        throw new ApiError(401, 'Metrics need an API token of any organisation', undefined, { 'WWW-Authenticate': 'Bearer' });
      }
      ctx.set('Cache-Control', 'no-store');
      ctx.type = registry.contentType;
      ctx.body = await registry.metrics();
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
