/**
 * The `trailproof` command.
 *
 *   trailproof serve [--db FILE | --database URL] [--port N] [--host H]
 *   trailproof token create --org ORG [--read-only] [--description TEXT] [--expires-in 90d | --expires-at DATE] [--db FILE | --database URL]
 *   trailproof token list [--org ORG] [--json]   /   trailproof token revoke ID   /   trailproof token evidence ID [--json]
 *   trailproof backup OUT.db [--db FILE]
 *   trailproof verify [--org ORG] [--json]
 *
 * Env: TRAILPROOF_DB, DATABASE_URL, PORT, HOST do what the flags do (flags win).
 */
import { parseArgs } from 'node:util';
import { jsonLogger } from './log.ts';
import { existsSync } from 'node:fs';
import { databaseLocation, databaseOptions, redacted, UsageError, withStore } from './cli-common.ts';
import { token } from './cli-tokens.ts';
import { isPostgresUrl, openSqliteStore, openStore, type PostgresOptions } from './store/index.ts';

const usage = `Usage:
  trailproof serve [--db FILE | --database URL] [--port N] [--host H]
  trailproof token create --org ORG [--read-only] [--description TEXT] [--expires-in 90d | --expires-at DATE]
                         [--db FILE | --database URL]
  trailproof token list [--org ORG] [--json] [--db FILE | --database URL]
  trailproof token revoke ID [--db FILE | --database URL]
  trailproof token evidence ID [--json] [--db FILE | --database URL]   (what the token stored)
  trailproof backup OUT.db [--db FILE]
  trailproof verify [--org ORG] [--json] [--db FILE | --database URL]   (exit 1 when a link is broken)

The database: --database postgres://... (env DATABASE_URL) for PostgreSQL, or a SQLite file
with --db FILE (env TRAILPROOF_DB; default ./trailproof.db). Flags win, then
TRAILPROOF_DB, then DATABASE_URL. PostgreSQL tuning for serve: TRAILPROOF_PG_MAX_CONNECTIONS
(pool size, default 10), TRAILPROOF_PG_STATEMENT_TIMEOUT_MS (default 10000),
TRAILPROOF_PG_CONNECTION_TIMEOUT_MS (default 3000). SQLite: TRAILPROOF_SQLITE_READER_THREADS
(threads that run list queries off the event loop, default 2, 0 for none), TRAILPROOF_SQLITE_MAX_SIZE
(largest the database file may grow, as 500MB or 20GB; writes beyond it answer 507 and store
nothing; no limit by default). HTTP: TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS (how long an idle
keep-alive connection stays open, default 65000: above the idle timeout of the proxy in front),
TRAILPROOF_MAX_CONNECTIONS (connections open at once, idle ones included, default 10000),
TRAILPROOF_MAX_CONNECTIONS_PER_ADDRESS (from one client address, default 1000; behind a proxy,
all come from its address), TRAILPROOF_HEADERS_TIMEOUT_MS (time to send a request's headers,
default 10000), TRAILPROOF_MAX_UPLOAD_BYTES_IN_FLIGHT (request bodies held at once, as 256MB,
the default; beyond it uploads answer 503 with Retry-After).
Defaults: --port 8080 (env PORT), --host 127.0.0.1 (env HOST).`;

async function serve(args: string[]) {
  const { values } = parseArgs({ args, options: { ...databaseOptions, port: { type: 'string' }, host: { type: 'string' } } });
  const port = Number(values.port ?? process.env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not '${values.port ?? process.env.PORT}'`);
  const logger = jsonLogger();
  const location = databaseLocation(values);
  const keepAliveTimeoutMs = numberSetting('TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS', 1000, 3_600_000);
  const maxConnections = numberSetting('TRAILPROOF_MAX_CONNECTIONS', 1, 1_000_000);
  const http = {
    maxConnectionsPerAddress: numberSetting('TRAILPROOF_MAX_CONNECTIONS_PER_ADDRESS', 1, 1_000_000),
    headersTimeoutMs: numberSetting('TRAILPROOF_HEADERS_TIMEOUT_MS', 100, 600_000),
    maxUploadBytesInFlight: sizeSetting('TRAILPROOF_MAX_UPLOAD_BYTES_IN_FLIGHT'),
  };
  // The HTTP stack (Koa, the contract's validators) loads only for `serve`, so token and backup commands start quickly.
  const { startServer } = await import('./server.ts');
  const store = await openStore(location, {
    postgres: postgresTuning(),
    sqlite: { threadsAtOpen: true, readerThreads: numberSetting('TRAILPROOF_SQLITE_READER_THREADS', 0, 64), maxSizeBytes: sizeSetting('TRAILPROOF_SQLITE_MAX_SIZE') },
  });
  const running = await startServer({ store, logger, port, host: values.host ?? process.env.HOST ?? '127.0.0.1', handleSignals: true, keepAliveTimeoutMs, maxConnections, ...http });
  logger.info({ msg: 'listening', url: running.url, database: redacted(location), backend: store.dialect });
}

/** A whole number from the environment variable `name`; undefined when it is unset or empty. */
function numberSetting(name: string, min: number, max: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${name} must be a whole number from ${min} to ${max}, not '${raw}'`);
  return value;
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

/** Copies a SQLite database with the online backup API: consistent, and safe while a server writes. */
async function backup(args: string[]) {
  const { values, positionals } = parseArgs({ args, options: databaseOptions, allowPositionals: true });
  const [target] = positionals;
  if (!target || positionals.length > 1) throw new UsageError('backup needs one OUT.db file');
  const location = databaseLocation(values);
  if (isPostgresUrl(location)) throw new UsageError('backup copies SQLite files; back up PostgreSQL with pg_dump (see docs/scaling.md)');
  if (existsSync(target)) throw new UsageError(`${target} exists already; choose a new file`);
  const store = await openSqliteStore(location);
  try {
    await store.backup!(target);
    process.stderr.write(`trailproof: backed up ${location} to ${target}\n`);
  } finally {
    await store.close();
  }
}

/**
 * Recomputes the hash chain of one organisation (or all) and every row and attachment it
 * vouches for. Exit status 1 when a link is broken, so it can gate a pipeline or a cron job.
 */
async function verify(args: string[]) {
  const { values } = parseArgs({ args, options: { org: { type: 'string' }, json: { type: 'boolean' }, ...databaseOptions } });
  const results = await withStore(values, async (store) => {
    const organizations = await store.listOrganizations();
    const chosen = values.org === undefined ? organizations : organizations.filter((o) => o.name === values.org);
    if (values.org !== undefined && !chosen.length) throw new Error(`no organisation '${values.org}'`);
    const out = [];
    for (const o of chosen) out.push(await store.verifyChain(o.id, o.name));
    return out;
  });
  if (values.json) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
  else {
    for (const r of results) {
      process.stdout.write(r.ok
        ? `${r.org}: ok, ${r.records} records, head ${r.head}\n`
        : `${r.org}: BROKEN at record ${r.firstBroken!.seq} (${r.firstBroken!.type}${r.firstBroken!.ref ? ` ${r.firstBroken!.ref.table}#${r.firstBroken!.ref.id}` : ''}): ${r.firstBroken!.reason}; ${r.records} records before it are intact\n`);
    }
  }
  if (results.some((r) => !r.ok)) process.exitCode = 1;
}

const commands: Record<string, (args: string[]) => Promise<void>> = { serve, token, backup, verify };

async function main(argv: string[]) {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage + '\n');
    return;
  }
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command '${name}'`);
  await command(args);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const usageProblem = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`trailproof: ${(error as Error).message}\n${usageProblem ? '\n' + usage + '\n' : ''}`);
  process.exitCode = usageProblem ? 2 : 1;
});
