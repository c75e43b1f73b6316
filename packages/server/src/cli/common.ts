/** What the commands of `trailproof` share: their help, usage errors, where the database is, a store for one command. */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { LogOptions, Store } from '../store/index.ts';
import { isPostgresUrl, openStore } from '../store/open-store.ts';

/** The version of this package, as `--version` prints it and `serve` logs it. */
export const version = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** A mistake in the command line: shown with the usage (the command's, when known), exit status 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;
const helpOption = { help: { type: 'boolean', short: 'h' } } as const;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O & typeof helpOption; allowPositionals: true; strict: true }>>;

/** A command as its help shows it: `options` are what `parseArgs` reads, `run` does the work. */
export interface Command<O extends Options> {
  /** `token create`: what follows `trailproof`. */
  name: string;
  /** The arguments after the name, as the usage line shows them. */
  synopsis: string;
  /** What it does, in a sentence or a few lines. */
  summary: string;
  options: O;
  /** Whether it takes arguments besides flags (ids, files). */
  positionals?: boolean;
  /** Each flag (and argument) and what it means, defaults included. */
  flags: ReadonlyArray<readonly [string, string]>;
  /** The environment variables it reads, and their defaults. */
  environment?: ReadonlyArray<readonly [string, string]>;
  run(parsed: Parsed<O>): Promise<void>;
}

/** A command ready to run on its arguments. */
export interface Runnable {
  name: string;
  /** How it is called: `trailproof NAME SYNOPSIS`, one line per subcommand of a group. */
  usage: string[];
  run(args: string[]): Promise<void>;
}

/**
 * `command`, reading its arguments first: `-h`/`--help` prints its help (stdout, exit 0); an
 * unknown flag, a flag without its value, an argument where none is taken, or any UsageError of
 * its own shows its usage (stderr, exit 2).
 */
export function defineCommand<O extends Options>(command: Command<O>): Runnable {
  const help = helpOf(command);
  return {
    name: command.name,
    usage: [`trailproof ${command.name} ${command.synopsis}`.trimEnd()],
    async run(args) {
      if (args.includes('--help') || args.includes('-h')) {
        process.stdout.write(help);
        return;
      }
      let parsed;
      try {
        parsed = parseArgs({ args, options: { ...command.options, ...helpOption }, allowPositionals: true, strict: true });
      } catch (error) {
        // Node's message goes on about positionals that start with '-': the first sentence says it.
        throw new UsageError((error as Error).message.replace(/\. To specify a positional argument[\s\S]*$/, ''), help);
      }
      if (!command.positionals && parsed.positionals.length) throw new UsageError(`unexpected argument '${parsed.positionals[0]}'`, help);
      try {
        await command.run(parsed as Parsed<O>);
      } catch (error) {
        throw error instanceof UsageError && !error.usage ? new UsageError(error.message, help) : error;
      }
    },
  };
}

/**
 * A command made of subcommands (`token create`, `token list`, ...): the first argument names
 * one; `-h`/`--help` alone, or `help`, lists them.
 */
export function commandGroup(name: string, summary: string, subcommands: readonly Runnable[]): Runnable {
  const usage = subcommands.flatMap((c) => c.usage);
  const help = `${usageText(usage)}\n\n${summary}\n\nEach one's flags, environment variables and defaults: trailproof ${name} COMMAND --help\n`;
  return {
    name,
    usage,
    async run([first, ...rest]) {
      if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
        if (first === undefined) throw new UsageError(`${name} needs a command: ${subcommands.map((c) => c.name.split(' ').pop()).join(', ')}`, help);
        process.stdout.write(help);
        return;
      }
      const sub = subcommands.find((c) => c.name === `${name} ${first}`);
      if (!sub) throw new UsageError(`unknown ${name} command '${first}'`, help);
      await sub.run(rest);
    },
  };
}

/** The flags that name the database, for `parseArgs`, and their help. */
export const databaseOptions = { db: { type: 'string' }, database: { type: 'string' } } as const;
export const databaseFlags = [
  ['--db FILE', 'the SQLite database file (default ./trailproof.db)'],
  ['--database URL', 'a postgres:// URL for PostgreSQL, or a SQLite file as --db'],
] as const;
export const databaseEnvironment = [
  ['TRAILPROOF_DB', 'the database, as --db or --database take it (the flags win)'],
  ['DATABASE_URL', 'a postgres:// URL, used when neither the flags nor TRAILPROOF_DB name the database'],
] as const;

/** Usage lines under one heading. */
export const usageText = (lines: readonly string[]) => `Usage:\n${lines.map((line) => `  ${line}`).join('\n')}`;

/** The whole help of `command`, as `--help` prints it. */
function helpOf(command: Pick<Command<Options>, 'name' | 'synopsis' | 'summary' | 'flags' | 'environment'>): string {
  const table = (rows: ReadonlyArray<readonly [string, string]>) => {
    const width = Math.max(...rows.map(([name]) => name.length)) + 2;
    return rows.map(([name, text]) => `  ${name.padEnd(width)}${text}`).join('\n');
  };
  const parts = [
    usageText([`trailproof ${command.name} ${command.synopsis}`.trimEnd()]),
    command.summary,
    'Flags:\n' + table([...command.flags, ['-h, --help', 'show this help']]),
  ];
  if (command.environment?.length) parts.push('Environment:\n' + table(command.environment));
  return parts.join('\n\n') + '\n';
}

/**
 * Where the data lives: the flags first, then TRAILPROOF_DB (our own variable, so it wins over
 * the generic one), then DATABASE_URL, then ./trailproof.db. --database takes either kind;
 * DATABASE_URL must be a PostgreSQL URL (the generic variable may name another kind of database):
 * anything else is refused rather than opened as a SQLite file of that name.
 */
export function databaseLocation(values: { db?: string; database?: string }): string {
  if (values.db && values.database) throw new UsageError('give --db or --database, not both');
  if (values.database !== undefined) return values.database; // a postgres:// URL, or a SQLite file as --db
  if (values.db !== undefined) return values.db;
  if (process.env.TRAILPROOF_DB) return process.env.TRAILPROOF_DB;
  if (process.env.DATABASE_URL) return postgresUrl(process.env.DATABASE_URL, 'DATABASE_URL');
  return './trailproof.db';
}

function postgresUrl(value: string, source: string): string {
  if (!isPostgresUrl(value))
    throw new UsageError(`${source} takes a postgres:// URL (use --db or TRAILPROOF_DB for a SQLite file), not '${redacted(value).slice(0, 60)}'`);
  return value;
}

/**
 * A location for logs and messages: any URL without its password. Up to the last `@`, as a URL
 * parser reads it: a password may hold an `@` of its own.
 */
export const redacted = (location: string) => location.replace(/\/\/([^:@/]+):.*@/, '//$1:***@');

/** The database as the start-up line names it: a SQLite file's path, or PostgreSQL's host, port and database (no user, no password). */
export function databaseName(location: string): string {
  if (!isPostgresUrl(location)) return location;
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return redacted(location);
  }
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  return `${host}${url.port ? `:${url.port}` : ''}/${decodeURIComponent(url.pathname.slice(1))}`;
}

/**
 * Checks that `file` is there and is a SQLite database, for a command that reads one (which never
 * creates one): a missing path, a folder, an empty file or another kind of file is an error that
 * says which. A SQLite file that is damaged inside passes here; reading it tells.
 */
export function existingSqliteFile(file: string): void {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) throw new Error(`no database at ${file}: check the path (--db FILE, or TRAILPROOF_DB)`);
  if (stat.isDirectory()) throw new Error(`${file} is a folder, not a database file`);
  if (stat.size === 0) throw new Error(`${file} is empty: it holds no database`);
  const header = Buffer.alloc(sqliteHeader.length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (!header.equals(sqliteHeader)) throw new Error(`${file} is not a SQLite database`);
}

/**
 * Checks that the PostgreSQL database at `url` holds Trailproof's tables (opening the store would
 * create them): an error that says so otherwise, or pg's own when it cannot connect.
 */
export async function existingPostgresDatabase(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ present: boolean }>(`select to_regclass('schema_migrations') is not null as present`);
    if (!rows[0]?.present) throw new Error(`no Trailproof database at ${redacted(url)} (it has no schema_migrations table): check the URL`);
  } finally {
    await client.end();
  }
}

/** The first bytes of every SQLite database file. */
const sqliteHeader = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Opens the store the flags name, runs `work` on it, and closes it. `mustExist`: for a command that
 * reads, the SQLite file must be there already (`existingSqliteFile`).
 */
export async function withStore<T>(
  values: { db?: string; database?: string },
  work: (store: Store) => Promise<T>,
  options: { mustExist?: boolean; log?: LogOptions } = {},
): Promise<T> {
  const location = databaseLocation(values);
  if (options.mustExist) await (isPostgresUrl(location) ? existingPostgresDatabase(location) : existingSqliteFile(location));
  const store = await openStore(location, { log: options.log });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Unix seconds as an ISO 8601 time in UTC. */
export const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString();
