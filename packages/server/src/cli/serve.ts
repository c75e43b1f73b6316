/** `trailproof serve`: the API v2 (and the console) over HTTP, with its settings from flags and the environment. */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { createLogger, loggerLevelOf } from '../logger.ts';
import { metricsModeOf } from '../metrics-mode.ts';
import { databaseEnvironment, databaseFlags, databaseLocation, databaseName, databaseOptions, defineCommand, UsageError, version } from './common.ts';
import { logEnvironment, logOptionsFromEnvironment } from './transparency-log.ts';
import { consoleSignInEnvironment, consoleSignInFromEnvironment } from './console-sign-in.ts';
import type { PostgresOptions } from '../store/index.ts';
import { isPostgresUrl, openStore } from '../store/open-store.ts';
import { secondsPerUnit } from '../support/time-units.ts';

export const serve = defineCommand({
  name: 'serve',
  synopsis: '[--db FILE | --database URL] [--port N] [--host H] [--workers N] [--no-console] [--trust-proxy]',
  summary: 'Serves the API v2 over HTTP until SIGINT or SIGTERM, logging one JSON line per request on stdout.',
  options: {
    ...databaseOptions,
    port: { type: 'string' },
    host: { type: 'string' },
    workers: { type: 'string' },
    'no-console': { type: 'boolean' },
    'trust-proxy': { type: 'boolean' },
  },
  flags: [
    ...databaseFlags,
    ['--port N', 'the port to listen on (default 8080; 0 for any free one)'],
    ['--host H', 'the address to listen on (default 127.0.0.1)'],
    ['--workers N', 'server processes answering on the port (default 1; auto: one per core): each a whole server on the same database'],
    ['--no-console', 'serve the API only, without the console (the pages for people at /ui)'],
    [
      '--trust-proxy',
      'behind one reverse proxy (TLS ended there): believe its X-Forwarded-Proto, X-Forwarded-Host and the last X-Forwarded-For address (off by default: any client could send them; see docs/scaling.md)',
    ],
  ],
  environment: [
    ...databaseEnvironment,
    ['PORT', 'as --port (the flag wins)'],
    ['LOG_LEVEL', 'fatal, error, warn, info (the default), debug (adds each store call of a request, with its time) or silent'],
    ['HOST', 'as --host (the flag wins)'],
    ['TRAILPROOF_WORKERS', 'as --workers (the flag wins)'],
    ['TRAILPROOF_TRUST_PROXY', 'as --trust-proxy: true or false (the flag wins)'],
    [
      'TRAILPROOF_FAILED_TOKEN_CHECKS_PER_MINUTE',
      'failed token checks and sign-ins one client address may make a minute (default 30); beyond them 429 with Retry-After',
    ],
    ['TRAILPROOF_PG_MAX_CONNECTIONS', 'PostgreSQL pool size (default 10)'],
    ['TRAILPROOF_PG_STATEMENT_TIMEOUT_MS', 'PostgreSQL statement time-out (default 10000)'],
    ['TRAILPROOF_PG_CONNECTION_TIMEOUT_MS', 'PostgreSQL connection time-out (default 3000)'],
    ['TRAILPROOF_SQLITE_READER_THREADS', 'SQLite: threads that run list queries off the event loop (default 2, 1 on one core; 0 for none)'],
    ['TRAILPROOF_SQLITE_MAX_SIZE', 'SQLite: largest the file may grow, as 500MB or 20GB; writes beyond it answer 507 and store nothing (no limit by default)'],
    ['TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS', 'how long an idle keep-alive connection stays open (default 65000: above the idle timeout of the proxy in front)'],
    ['TRAILPROOF_MAX_CONNECTIONS', 'connections open at once, idle ones included (default 10000)'],
    ['TRAILPROOF_MAX_CONNECTIONS_PER_ADDRESS', 'connections from one client address (default 1000; behind a proxy, all come from its address)'],
    ['TRAILPROOF_HEADERS_TIMEOUT_MS', "time to send a request's headers (default 10000)"],
    ['TRAILPROOF_CONSOLE_SESSION_TTL', 'how long a console sign-in lasts: a number and m, h, d or w (default 12h)'],
    ['TRAILPROOF_MAX_UPLOAD_BYTES_IN_FLIGHT', 'request bodies held in memory at once, as 256MB (the default); beyond it uploads answer 503 with Retry-After'],
    ['TRAILPROOF_METRICS', "Prometheus metrics at GET /metrics: on (the default, no token), token (any organisation's token) or off"],
    ...logEnvironment,
    ...consoleSignInEnvironment,
  ],
  async run({ values }) {
    const port = Number(values.port ?? process.env.PORT ?? 8080);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not '${values.port ?? process.env.PORT}'`);
    const logger = createLogger({ level: logLevel(), ...(cluster.isWorker ? { fields: { worker: cluster.worker!.id } } : {}) });
    const location = databaseLocation(values);
    const workers = workerCount(values.workers ?? process.env.TRAILPROOF_WORKERS);
    if (workers > 1 && cluster.isPrimary) {
      const { runWorkerPool } = await import('./serve-workers.ts');
      // Migrations and the log's signing key, once, before several processes open the database at once.
      const prepare = async () => void (await (await openStore(location, { log: logOptionsFromEnvironment(), sqlite: { readerThreads: 0 } })).close());
      return runWorkerPool({ count: workers, logger, prepare });
    }
    const keepAliveTimeoutMs = numberSetting('TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS', 1000, 3_600_000);
    const maxConnections = numberSetting('TRAILPROOF_MAX_CONNECTIONS', 1, 1_000_000);
    const sessionTtlSeconds = durationSetting('TRAILPROOF_CONSOLE_SESSION_TTL');
    const signIn = consoleSignInFromEnvironment();
    const metrics = metricsModeOf(process.env.TRAILPROOF_METRICS);
    const http = {
      maxConnectionsPerAddress: numberSetting('TRAILPROOF_MAX_CONNECTIONS_PER_ADDRESS', 1, 1_000_000),
      headersTimeoutMs: numberSetting('TRAILPROOF_HEADERS_TIMEOUT_MS', 100, 600_000),
      maxUploadBytesInFlight: sizeSetting('TRAILPROOF_MAX_UPLOAD_BYTES_IN_FLIGHT'),
      proxy: values['trust-proxy'] === true || booleanSetting('TRAILPROOF_TRUST_PROXY'),
      failedTokenChecksPerMinute: numberSetting('TRAILPROOF_FAILED_TOKEN_CHECKS_PER_MINUTE', 1, 1_000_000),
    };
    // The HTTP stack (Koa, the contract's validators) loads only for `serve`, so token and backup commands start quickly.
    const { startServer } = await import('../server.ts');
    const storeOptions = {
      log: logOptionsFromEnvironment(),
      postgres: postgresTuning(),
      sqlite: {
        // Listening does not wait for the threads; /readyz answers 503 until the writer thread is up.
        threadsInBackground: true,
        readerThreads: numberSetting('TRAILPROOF_SQLITE_READER_THREADS', 0, 64),
        maxSizeBytes: sizeSetting('TRAILPROOF_SQLITE_MAX_SIZE'),
      },
    };
    // Opened while the port is bound (/livez answers meanwhile, /readyz once the store is open); a
    // pool's worker opens it once the primary has prepared the database.
    const preparedByPool = cluster.isWorker ? (await import('./serve-workers.ts')).preparedDatabase() : Promise.resolve();
    const store = preparedByPool.then(() => openStore(location, storeOptions));
    // A port in use (say) ends the command: the store's threads and timers would keep the process alive.
    const running = await startServer({
      store,
      logger,
      port,
      host: values.host ?? process.env.HOST ?? '127.0.0.1',
      handleSignals: true,
      keepAliveTimeoutMs,
      maxConnections,
      metrics,
      ...http,
      console: values['no-console'] ? false : { sessionTtlSeconds, ...signIn },
    }).catch(async (error: unknown) => {
      await store.then((opened) => opened.close()).catch(() => undefined);
      // A worker's channel to its primary would keep it alive too.
      if (cluster.isWorker) {
        process.exitCode = 1;
        process.disconnect();
      }
      throw error;
    });
    logger.info({
      msg: 'listening',
      version,
      url: running.url,
      backend: (await store).dialect,
      database: databaseName(location),
      ...(values['no-console'] ? {} : { console: `${running.url}/ui` }),
      first_token: `trailproof token create --org YOUR_ORG ${isPostgresUrl(location) ? '--database URL (the same URL)' : `--db ${shellWord(location)}`}`,
      ...(cluster.isWorker ? { pid: process.pid } : {}),
    });
  },
});

/** `text` as one word of a shell command: quoted when it holds anything but letters, digits and `._/-`. */
const shellWord = (text: string) => (/^[\w./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`);

/** The worker processes `--workers` (or TRAILPROOF_WORKERS) asks for: a number, or `auto` for one per core; 1 when unset. */
export function workerCount(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 1;
  if (raw.trim() === 'auto') return availableParallelism();
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1 || count > 64) throw new UsageError(`--workers must be a whole number from 1 to 64 or auto, not '${raw}'`);
  return count;
}

/** The log level LOG_LEVEL names (info by default). */
function logLevel() {
  try {
    return loggerLevelOf(process.env.LOG_LEVEL);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A whole number from the environment variable `name`; undefined when it is unset or empty. */
function numberSetting(name: string, min: number, max: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${name} must be a whole number from ${min} to ${max}, not '${raw}'`);
  return value;
}

/** `true` or `false` from the environment variable `name` (also 1/0, yes/no, on/off); false when unset or empty. */
function booleanSetting(name: string): boolean {
  const raw = (process.env[name] ?? '').trim().toLowerCase();
  if (['', 'false', '0', 'no', 'off'].includes(raw)) return false;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  throw new UsageError(`${name} must be true or false, not '${process.env[name]}'`);
}

/** Seconds from the environment variable `name` (`30m`, `12h`, `7d`, `2w`); undefined when unset or empty. */
function durationSetting(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const match = /^([1-9][0-9]{0,5})([mhdw])$/.exec(raw.trim());
  if (!match) throw new UsageError(`${name} must be a number and a unit (m, h, d or w), such as 12h, not '${raw}'`);
  return Number(match[1]) * secondsPerUnit.get(match[2]!)!;
}

/** Bytes from the environment variable `name` (`500MB`, `20GB`, `1TB`: powers of 1024; plain bytes too); undefined when unset or empty. */
function sizeSetting(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const size = /^(\d+)\s*(?:([KMGT])i?B|B)?$/i.exec(raw.trim());
  const bytes = size ? Number(size[1]) * 1024 ** (size[2] ? 'KMGT'.indexOf(size[2].toUpperCase()) + 1 : 0) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1024 * 1024) throw new UsageError(`${name} must be a size of at least 1MB, as 500MB or 20GB, not '${raw}'`);
  return bytes;
}

/** PostgreSQL pool and time-out settings from the environment (see docs/scaling.md). */
function postgresTuning(): PostgresOptions {
  return {
    maxConnections: numberSetting('TRAILPROOF_PG_MAX_CONNECTIONS', 1, 1000),
    statementTimeoutMs: numberSetting('TRAILPROOF_PG_STATEMENT_TIMEOUT_MS', 10, 600_000),
    connectionTimeoutMs: numberSetting('TRAILPROOF_PG_CONNECTION_TIMEOUT_MS', 10, 600_000),
  };
}
