/**
 * The `trailproof` command: `serve`, `token create | list | revoke | evidence`, `badge public | private`, `key show`, `backup`, `verify`.
 * Every command answers `--help` with its flags and environment variables; `trailproof --help`
 * lists them all. Each command's module loads when it runs, so that a command loads only what it
 * needs (`token create` neither the HTTP stack nor the audit package's code).
 */
import { UsageError, usageText, version, type Runnable } from './common.ts';

/** Each command by name, and how to load it. */
const commands: ReadonlyArray<readonly [string, () => Promise<Runnable>]> = [
  ['serve', async () => (await import('./serve.ts')).serve],
  ['token', async () => (await import('./tokens.ts')).token],
  ['badge', async () => (await import('./badges.ts')).badge],
  ['key', async () => (await import('./transparency-log.ts')).key],
  ['backup', async () => (await import('./database.ts')).backup],
  ['verify', async () => (await import('./database.ts')).verify],
  ['export', async () => (await import('./export.ts')).exportCommand],
  ['verify-package', async () => (await import('./audit.ts')).verifyPackageCommand],
  ['verify-checkpoint', async () => (await import('./audit.ts')).verifyCheckpointCommand],
];

/** The help of `trailproof` itself, which loads every command for its usage lines. */
async function usage(): Promise<string> {
  const loaded = await Promise.all(commands.map(([, load]) => load()));
  return `${usageText([...loaded.flatMap((c) => c.usage), 'trailproof --version'])}

Trailproof ${version}: evidence of delivery compliance, served over the Kosli API v2.
The database: a SQLite file (--db FILE, env TRAILPROOF_DB; default ./trailproof.db) or PostgreSQL
(--database postgres://..., env DATABASE_URL). Flags win, then TRAILPROOF_DB, then DATABASE_URL.

Each command's flags, environment variables and defaults: trailproof COMMAND --help
`;
}

async function main(argv: string[]) {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || (name === 'help' && !args.length)) {
    process.stdout.write(await usage());
    return;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`${version}\n`);
    return;
  }
  // `trailproof help token create` is `trailproof token create --help`.
  const [commandName, ...rest] = name === 'help' ? [...args, '--help'] : [name, ...args];
  const load = commands.find(([n]) => n === commandName)?.[1];
  if (!load) throw new UsageError(`unknown command '${commandName}'`);
  await (await load()).run(rest);
}

main(process.argv.slice(2)).catch(async (error: unknown) => {
  const usageProblem = error instanceof UsageError;
  process.stderr.write(`trailproof: ${(error as Error).message}\n${usageProblem ? '\n' + (error.usage ?? (await usage())) : ''}`);
  process.exitCode = usageProblem ? 2 : 1;
});
