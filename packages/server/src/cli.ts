/**
 * The `trailproof` command.
 *
 *   trailproof serve [--db FILE | --database URL] [--port N] [--host H]
 *   trailproof token create --org ORG [--read-only] [--description TEXT] [--db FILE | --database URL]
 *   trailproof backup OUT.db [--db FILE]
 *
 * Env: TRAILPROOF_DB, DATABASE_URL, PORT, HOST do what the flags do (flags win).
 */
import { parseArgs } from 'node:util';
import { createToken } from './auth.ts';
import { jsonLogger } from './log.ts';
import { startServer } from './server.ts';
import { existsSync } from 'node:fs';
import { isPostgresUrl, openSqliteStore, openStore } from './store/index.ts';

const usage = `Usage:
  trailproof serve [--db FILE | --database URL] [--port N] [--host H]
  trailproof token create --org ORG [--read-only] [--description TEXT] [--db FILE | --database URL]
  trailproof backup OUT.db [--db FILE]

The database: --database postgres://... (env DATABASE_URL) for PostgreSQL, or a SQLite file
with --db FILE (env TRAILPROOF_DB; default ./trailproof.db).
Defaults: --port 8080 (env PORT), --host 127.0.0.1 (env HOST).`;

class UsageError extends Error {}

const databaseOptions = { db: { type: 'string' }, database: { type: 'string' } } as const;

/** Where the data lives: flags first, then DATABASE_URL, then TRAILPROOF_DB, then ./trailproof.db. */
function databaseLocation(values: { db?: string; database?: string }): string {
  if (values.db && values.database) throw new UsageError('give --db or --database, not both');
  return values.database ?? values.db ?? process.env.DATABASE_URL ?? process.env.TRAILPROOF_DB ?? './trailproof.db';
}

/** A location for logs: a PostgreSQL URL without its password. */
const redacted = (location: string) => (isPostgresUrl(location) ? location.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@') : location);

async function serve(args: string[]) {
  const { values } = parseArgs({ args, options: { ...databaseOptions, port: { type: 'string' }, host: { type: 'string' } } });
  const port = Number(values.port ?? process.env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not '${values.port ?? process.env.PORT}'`);
  const logger = jsonLogger();
  const location = databaseLocation(values);
  const store = await openStore(location);
  const running = await startServer({ store, logger, port, host: values.host ?? process.env.HOST ?? '127.0.0.1', handleSignals: true });
  logger.info({ msg: 'listening', url: running.url, database: redacted(location), backend: store.dialect });
}

async function token(args: string[]) {
  const [action, ...rest] = args;
  if (action !== 'create') throw new UsageError(`unknown token command '${action ?? ''}'`);
  const { values } = parseArgs({
    args: rest,
    options: { org: { type: 'string' }, 'read-only': { type: 'boolean' }, description: { type: 'string' }, ...databaseOptions },
  });
  if (!values.org) throw new UsageError('token create needs --org ORG');
  const store = await openStore(databaseLocation(values));
  try {
    const { token } = await createToken(store, { org: values.org, readOnly: values['read-only'] ?? false, description: values.description });
    process.stdout.write(token + '\n');
  } finally {
    await store.close();
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

const commands: Record<string, (args: string[]) => Promise<void>> = { serve, token, backup };

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
