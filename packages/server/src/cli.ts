/**
 * The `trailproof` command.
 *
 *   trailproof serve [--db FILE] [--port N] [--host H]
 *   trailproof token create --org ORG [--read-only] [--description TEXT] [--db FILE]
 *
 * Env: TRAILPROOF_DB, PORT, HOST do what the flags do (flags win).
 */
import { parseArgs } from 'node:util';
import { createToken } from './auth.ts';
import { jsonLogger } from './log.ts';
import { startServer } from './server.ts';
import { openSqliteStore } from './store/index.ts';

const usage = `Usage:
  trailproof serve [--db FILE] [--port N] [--host H]
  trailproof token create --org ORG [--read-only] [--description TEXT] [--db FILE]

Defaults: --db ./trailproof.db (env TRAILPROOF_DB), --port 8080 (env PORT), --host 127.0.0.1 (env HOST).`;

class UsageError extends Error {}

const dbFile = (value: string | undefined) => value ?? process.env.TRAILPROOF_DB ?? './trailproof.db';

async function serve(args: string[]) {
  const { values } = parseArgs({ args, options: { db: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } } });
  const port = Number(values.port ?? process.env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not '${values.port ?? process.env.PORT}'`);
  const logger = jsonLogger();
  const file = dbFile(values.db);
  const store = await openSqliteStore(file);
  const running = await startServer({ store, logger, port, host: values.host ?? process.env.HOST ?? '127.0.0.1', handleSignals: true });
  logger.info({ msg: 'listening', url: running.url, db: file });
}

async function token(args: string[]) {
  const [action, ...rest] = args;
  if (action !== 'create') throw new UsageError(`unknown token command '${action ?? ''}'`);
  const { values } = parseArgs({
    args: rest,
    options: { org: { type: 'string' }, 'read-only': { type: 'boolean' }, description: { type: 'string' }, db: { type: 'string' } },
  });
  if (!values.org) throw new UsageError('token create needs --org ORG');
  const store = await openSqliteStore(dbFile(values.db));
  try {
    const { token } = await createToken(store, { org: values.org, readOnly: values['read-only'] ?? false, description: values.description });
    process.stdout.write(token + '\n');
  } finally {
    await store.close();
  }
}

const commands: Record<string, (args: string[]) => Promise<void>> = { serve, token };

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
