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
import { createToken } from './auth.ts';
import { jsonLogger } from './log.ts';
import { existsSync } from 'node:fs';
import { secondsPerUnit } from './time-units.ts';
import { isPostgresUrl, openSqliteStore, openStore, type PostgresOptions, type Store, type TokenEvidence } from './store/index.ts';

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
(threads that run list queries off the event loop, default 2, 0 for none).
Defaults: --port 8080 (env PORT), --host 127.0.0.1 (env HOST).`;

class UsageError extends Error {}

const databaseOptions = { db: { type: 'string' }, database: { type: 'string' } } as const;

/**
 * Where the data lives: the flags first, then TRAILPROOF_DB (our own variable, so it wins over
 * the generic one), then DATABASE_URL, then ./trailproof.db. --database takes either kind;
 * DATABASE_URL must be a PostgreSQL URL (the generic variable may name another kind of database):
 * anything else is refused rather than opened as a SQLite file of that name.
 */
function databaseLocation(values: { db?: string; database?: string }): string {
  if (values.db && values.database) throw new UsageError('give --db or --database, not both');
  if (values.database !== undefined) return values.database; // a postgres:// URL, or a SQLite file as --db
  if (values.db !== undefined) return values.db;
  if (process.env.TRAILPROOF_DB) return process.env.TRAILPROOF_DB;
  if (process.env.DATABASE_URL) return postgresUrl(process.env.DATABASE_URL, 'DATABASE_URL');
  return './trailproof.db';
}

function postgresUrl(value: string, source: string): string {
  if (!isPostgresUrl(value)) throw new UsageError(`${source} takes a postgres:// URL (use --db or TRAILPROOF_DB for a SQLite file), not '${redacted(value).slice(0, 60)}'`);
  return value;
}

/** A location for logs and messages: any URL without its password. */
const redacted = (location: string) => location.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

async function serve(args: string[]) {
  const { values } = parseArgs({ args, options: { ...databaseOptions, port: { type: 'string' }, host: { type: 'string' } } });
  const port = Number(values.port ?? process.env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not '${values.port ?? process.env.PORT}'`);
  const logger = jsonLogger();
  const location = databaseLocation(values);
  // The HTTP stack (Koa, the contract's validators) loads only for `serve`, so token and backup commands start quickly.
  const { startServer } = await import('./server.ts');
  const store = await openStore(location, { postgres: postgresTuning(), sqlite: { threadsAtOpen: true, readerThreads: numberSetting('TRAILPROOF_SQLITE_READER_THREADS', 0, 64) } });
  const running = await startServer({ store, logger, port, host: values.host ?? process.env.HOST ?? '127.0.0.1', handleSignals: true });
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

/** PostgreSQL pool and time-out settings from the environment (see docs/scaling.md). */
function postgresTuning(): PostgresOptions {
  return {
    maxConnections: numberSetting('TRAILPROOF_PG_MAX_CONNECTIONS', 1, 1000),
    statementTimeoutMs: numberSetting('TRAILPROOF_PG_STATEMENT_TIMEOUT_MS', 10, 600_000),
    connectionTimeoutMs: numberSetting('TRAILPROOF_PG_CONNECTION_TIMEOUT_MS', 10, 600_000),
  };
}

async function token(args: string[]) {
  const [action, ...rest] = args;
  const subcommands: Record<string, (args: string[]) => Promise<void>> = { create: tokenCreate, list: tokenList, revoke: tokenRevoke, evidence: tokenEvidence };
  const run = subcommands[action ?? ''];
  if (!run) throw new UsageError(`unknown token command '${action ?? ''}'`);
  await run(rest);
}

async function withStore<T>(values: { db?: string; database?: string }, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(databaseLocation(values));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function tokenCreate(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      org: { type: 'string' }, 'read-only': { type: 'boolean' }, description: { type: 'string' },
      'expires-in': { type: 'string' }, 'expires-at': { type: 'string' }, ...databaseOptions,
    },
  });
  if (!values.org) throw new UsageError('token create needs --org ORG');
  const org = values.org;
  const expiresAt = expiry(values['expires-in'], values['expires-at'], Date.now() / 1000);
  await withStore(values, async (store) => {
    const { token } = await createToken(store, { org, readOnly: values['read-only'] ?? false, description: values.description, ...(expiresAt === undefined ? {} : { expiresAt }) });
    process.stdout.write(token + '\n');
  });
}

const isoDateOrTime = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** When a new token expires (Unix seconds): `--expires-in 90d` (m, h, d or w) or `--expires-at` a date or time; undefined for never. */
function expiry(expiresIn: string | undefined, expiresAt: string | undefined, now: number): number | undefined {
  if (expiresIn !== undefined && expiresAt !== undefined) throw new UsageError('give --expires-in or --expires-at, not both');
  if (expiresIn !== undefined) {
    const match = /^([1-9][0-9]{0,5})([mhdw])$/.exec(expiresIn);
    if (!match) throw new UsageError(`--expires-in takes a number and a unit (m, h, d or w), such as 90d, not '${expiresIn}'`);
    return now + Number(match[1]) * secondsPerUnit.get(match[2]!)!;
  }
  if (expiresAt === undefined) return undefined;
  // A date alone is the start of that day in UTC (as Date.parse reads it); a time needs its zone.
  const at = isoDateOrTime.test(expiresAt) && isCalendarDate(expiresAt.slice(0, 10)) ? Date.parse(expiresAt) / 1000 : NaN;
  if (!Number.isFinite(at)) throw new UsageError(`--expires-at takes a date or an ISO 8601 time with its zone, such as 2027-03-31 or 2027-03-31T18:00:00Z, not '${expiresAt}'`);
  if (at <= now) throw new UsageError(`--expires-at ${expiresAt} is not in the future`);
  return at;
}

/** `YYYY-MM-DD` names a day of the calendar (Date.parse takes 2027-02-30 for March 2nd). */
function isCalendarDate(date: string): boolean {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
}

/**
 * Lists tokens (id, organisation, access, status, dates, description): never a secret, which is
 * not stored anyway. The status is `active`, `revoked` or `expired` (revoked wins).
 */
async function tokenList(args: string[]) {
  const { values } = parseArgs({ args, options: { org: { type: 'string' }, json: { type: 'boolean' }, ...databaseOptions } });
  const tokens = await withStore(values, (store) => store.listTokens(values.org));
  const now = Date.now() / 1000;
  const rows = tokens.map((t) => ({
    id: t.id, org: t.organization, access: t.readOnly ? 'read-only' : 'read-write',
    status: t.revokedAt !== null ? 'revoked' : t.expiresAt !== null && t.expiresAt <= now ? 'expired' : 'active',
    created_at: isoTime(t.createdAt), revoked_at: t.revokedAt === null ? null : isoTime(t.revokedAt),
    expires_at: t.expiresAt === null ? null : isoTime(t.expiresAt), description: t.description,
  }));
  if (values.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  process.stdout.write(['ID', 'ORG', 'ACCESS', 'STATUS', 'CREATED', 'REVOKED', 'EXPIRES', 'DESCRIPTION'].join('\t') + '\n');
  for (const r of rows) process.stdout.write([r.id, r.org, r.access, r.status, r.created_at, r.revoked_at ?? '-', r.expires_at ?? '-', r.description ?? ''].join('\t') + '\n');
}

const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The token id in `given`: the part after `tp_` of a whole token, or the id itself. */
const tokenIdOf = (given: string) => /^tp_([A-Za-z0-9]{16})(_|$)/.exec(given)?.[1] ?? given;

/** Revokes a token by its id (the part after `tp_`, or the whole token); it stops working at once. */
async function tokenRevoke(args: string[]) {
  const { values, positionals } = parseArgs({ args, options: databaseOptions, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError('token revoke needs one token id');
  const id = tokenIdOf(positionals[0]!);
  const revoked = await withStore(values, (store) => store.revokeToken(id, Date.now() / 1000));
  if (!revoked) throw new Error(`no active token with id '${id}'`);
  process.stderr.write(`trailproof: token ${id} revoked\n`);
}

/**
 * Lists what a token stored, oldest first: the trails it began (or began again), its
 * attestations, environment snapshots, approval requests and reviews. After a token leaked:
 * revoke it, then review these.
 */
async function tokenEvidence(args: string[]) {
  const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' }, ...databaseOptions }, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError('token evidence needs one token id');
  const id = tokenIdOf(positionals[0]!);
  const found = await withStore(values, (store) => store.evidenceOfToken(id));
  if (!found) throw new Error(`no token with id '${id}'`);
  const rows = found.items.map((e) => ({ at: isoTime(e.at), org: found.organization, ...describeEvidence(e) }));
  if (values.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  process.stdout.write(['TIME', 'ORG', 'WHAT', 'WHERE', 'DETAIL'].join('\t') + '\n');
  for (const r of rows) process.stdout.write([r.at, r.org, r.what, r.where, r.detail].join('\t') + '\n');
}

/** One line of `token evidence`: what was stored, where, and what else says which one. */
function describeEvidence(e: TokenEvidence): { what: string; where: string; detail: string; [key: string]: unknown } {
  switch (e.kind) {
    case 'trail.begin':
      return { what: e.created ? 'began trail' : 'began trail again', where: `${e.flow}/${e.trail}`, detail: '-', flow: e.flow, trail: e.trail };
    case 'attestation':
      return {
        what: 'attestation', where: `${e.flow}/${e.trail}`, detail: `${e.name} (${e.type}, id ${e.attestationId})`,
        flow: e.flow, trail: e.trail, attestation_id: e.attestationId, attestation_name: e.name, attestation_type: e.type,
      };
    case 'snapshot':
      return { what: 'environment snapshot', where: e.environment, detail: `#${e.snapshotIndex}`, environment: e.environment, snapshot_index: e.snapshotIndex };
    case 'approval':
      return { what: 'approval request', where: `${e.flow} release ${e.releaseNumber}`, detail: '-', flow: e.flow, release_number: e.releaseNumber };
    case 'review':
      return {
        what: 'approval review', where: `${e.flow} release ${e.releaseNumber}`, detail: `${e.state} by ${e.approvedBy}`,
        flow: e.flow, release_number: e.releaseNumber, state: e.state, approved_by: e.approvedBy,
      };
  }
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
