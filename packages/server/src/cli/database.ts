/**
 * `trailproof backup` and `trailproof verify`: commands that read a database. They never create
 * or change one: a SQLite file is opened read-only, and a missing, empty, foreign or damaged file
 * is an error that says which (exit status 1), so that a scheduled job with a wrong path fails.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from '../store/sqlite/driver.ts';
import { Kysely } from 'kysely';
import { databaseEnvironment, databaseFlags, databaseLocation, databaseOptions, defineCommand, existingSqliteFile, UsageError, withStore } from './common.ts';
import type { Database } from '../store/database.ts';
import { createStore, isPostgresUrl, type LogVerifyOptions, type LogVerifyResult, type Store, type VerifyResult } from '../store/index.ts';
import { migrations } from '../store/migrations.ts';
import { sqliteDialect } from '../store/sqlite/open.ts';

/** Copies a SQLite database with the online backup API, then checks the copy. */
export const backup = defineCommand({
  name: 'backup',
  synopsis: 'OUT.db [--db FILE]',
  summary: [
    "Copies a SQLite database to OUT.db, a new file, with SQLite's online backup API: a consistent copy,",
    'safe while a server writes. The copy is one file (rollback journal: no -wal or -shm beside it, so a',
    "read-only medium will do; a server switches it back to WAL when it opens it) and must pass SQLite's",
    'integrity check, or it is removed and the exit status is 1. Back up PostgreSQL with pg_dump.',
  ].join('\n'),
  options: databaseOptions,
  positionals: true,
  flags: [
    ['OUT.db', 'the copy: a file that does not exist yet'],
    ['--db FILE', 'the database to copy (default ./trailproof.db)'],
  ],
  environment: [databaseEnvironment[0]],
  async run({ values, positionals }) {
    const [target] = positionals;
    if (!target || positionals.length > 1) throw new UsageError('backup needs one OUT.db file');
    const location = databaseLocation(values);
    if (isPostgresUrl(location)) throw new UsageError('backup copies SQLite files; back up PostgreSQL with pg_dump (see docs/scaling.md)');
    if (existsSync(target)) throw new UsageError(`${target} exists already; choose a new file`);
    const source = openToRead(location);
    try {
      // The whole database in one step of the backup API: a step copies from one consistent read of
      // the source, while a few pages per step start over whenever the server commits in between.
      await source.raw.backup(target, { progress: () => 0x7fffffff });
    } finally {
      source.close();
    }
    const problems = checkedCopy(target);
    if (problems) {
      rmSync(target, { force: true });
      throw new Error(`the copy of ${location} fails SQLite's integrity check, so ${target} was removed: ${problems}`);
    }
    process.stderr.write(`trailproof: backed up ${location} to ${target} (integrity check ok)\n`);
  },
});

/** Makes the copy one self-contained file and checks it: what SQLite's integrity check found, or null when it is whole. */
function checkedCopy(file: string): string | null {
  const copy = new BetterSqlite3(file, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    return integrityProblems(copy);
  } catch (error) {
    return (error as Error).message;
  } finally {
    copy.close();
  }
}

/** The first problems SQLite's integrity check finds in `db`; null when there are none. */
function integrityProblems(db: BetterSqlite3.Database): string | null {
  const found = db.pragma('integrity_check(5)', { simple: false }) as Array<{ integrity_check: string }>;
  const problems = found.map((row) => row.integrity_check).filter((text) => text !== 'ok');
  return problems.length ? problems.join('; ') : null;
}

/**
 * Recomputes the hash chain of one organisation (or all) and every row and attachment it
 * vouches for, then its transparency log against the chain. Exit status 1 when a link is
 * broken, so it can gate a pipeline or a cron job.
 */
export const verify = defineCommand({
  name: 'verify',
  synopsis: '[--org ORG] [--key VERIFIER_KEY] [--json] [--db FILE | --database URL]',
  summary: [
    'Recomputes the hash chain of each organisation (or of ORG) and checks every row and attachment it',
    'vouches for; then its transparency log: every leaf against its chain record, every stored subtree',
    "against the leaves, and every kept checkpoint's signature and root against the tree of that size.",
    'It only reads: a read-only file or folder will do (a SQLite file in a folder it cannot',
    'write is read from a copy in the temporary folder), and a missing, empty or damaged database is an error.',
    'Exit status: 0 when every chain and log holds, 1 when a link is broken or the database cannot be read, 2 for a',
    'mistake in the command line.',
  ].join('\n'),
  options: { org: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean' }, ...databaseOptions },
  flags: [
    ['--org ORG', 'only this organisation (all by default)'],
    [
      '--key VERIFIER_KEY',
      "the key checkpoints must be signed by, as trailproof key show printed it when you pinned it (default: the database's own key, which whoever can write the database can replace)",
    ],
    ['--json', 'the results as JSON'],
    ...databaseFlags,
  ],
  environment: databaseEnvironment,
  async run({ values }) {
    const location = databaseLocation(values);
    const options = { verifierKey: values.key };
    const results = isPostgresUrl(location)
      ? await withStore(values, (store) => verifyChains(store, values.org, options), { mustExist: true })
      : await verifySqlite(location, values.org, options);
    if (values.json) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
    else {
      for (const r of results) {
        process.stdout.write(
          r.ok
            ? `${r.org}: ok, ${r.records} records, head ${r.head}\n`
            : `${r.org}: BROKEN at record ${r.firstBroken!.seq} (${r.firstBroken!.type}${r.firstBroken!.ref ? ` ${r.firstBroken!.ref.table}#${r.firstBroken!.ref.id}` : ''}): ${r.firstBroken!.reason}; ${r.records} records before it are intact\n`,
        );
        process.stdout.write(
          r.log.ok
            ? `${r.org}: log ok, ${r.log.leaves} leaves, ${r.log.checkpoints} checkpoints\n`
            : `${r.org}: log BROKEN: ${r.log.problem}; ${r.log.leaves} leaves before it are intact\n`,
        );
      }
    }
    if (results.some((r) => !r.ok || !r.log.ok)) process.exitCode = 1;
  },
});

type Verified = VerifyResult & { log: LogVerifyResult };

async function verifyChains(
  store: Pick<Store, 'listOrganizations' | 'verifyChain' | 'verifyLog'>,
  org: string | undefined,
  options: LogVerifyOptions,
): Promise<Verified[]> {
  const organizations = await store.listOrganizations();
  const chosen = org === undefined ? organizations : organizations.filter((o) => o.name === org);
  if (org !== undefined && !chosen.length) throw new Error(`no organisation '${org}'`);
  const out = [];
  for (const o of chosen) out.push({ ...(await store.verifyChain(o.id, o.name)), log: await store.verifyLog(o.id, o.name, options) });
  return out;
}

/** Verifies a SQLite file over a read-only connection of its own, after SQLite's integrity check. */
async function verifySqlite(file: string, org: string | undefined, options: LogVerifyOptions): Promise<Verified[]> {
  const opened = openToRead(file, { current: true, integrity: true, copyIfUnreadable: true });
  const store = createStore(new Kysely<Database>({ dialect: sqliteDialect(opened.raw) }), 'sqlite');
  try {
    return await verifyChains(store, org, options);
  } finally {
    await store.close();
    opened.close();
  }
}

interface ReadOptions {
  /** Every migration of this version applied (what the store's queries expect), none unknown to it. */
  current?: boolean;
  /** SQLite's integrity check passes. */
  integrity?: boolean;
  /**
   * When SQLite cannot read the file where it is (a WAL database needs its -shm file beside it,
   * which a read-only folder cannot take), read a copy in the temporary folder instead.
   */
  copyIfUnreadable?: boolean;
}

/**
 * Opens an existing Trailproof database read-only, after checking it is one (see ReadOptions for
 * what else): errors say what is wrong with the file. `close` closes it and removes any copy.
 */
export function openToRead(file: string, options: ReadOptions = {}): { raw: BetterSqlite3.Database; close(): void } {
  existingSqliteFile(file);
  try {
    const raw = checked(file, file, options);
    return { raw, close: () => raw.close() };
  } catch (error) {
    if (!(options.copyIfUnreadable && (error as { code?: string }).code === 'SQLITE_CANTOPEN')) throw described(file, error);
  }
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-read-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    process.stderr.write(
      `trailproof: SQLite cannot read ${file} where it is (a WAL database needs to write a -shm file beside it); reading a copy in ${dir}\n`,
    );
    const copy = join(dir, 'copy.db');
    copyFileSync(file, copy);
    if ((statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) copyFileSync(`${file}-wal`, `${copy}-wal`);
    const raw = checked(copy, file, options);
    return { raw, close: () => (raw.close(), remove()) };
  } catch (error) {
    remove();
    throw described(file, error);
  }
}

/** `path` opened read-only and checked (named `file` in messages); throws what is wrong with it. */
function checked(path: string, file: string, options: ReadOptions): BetterSqlite3.Database {
  const raw = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    if (!raw.prepare(`select 1 from sqlite_master where type = 'table' and name = 'schema_migrations'`).get()) {
      throw new Error(`${file} is a SQLite database, but not a Trailproof one (it has no schema_migrations table)`);
    }
    if (options.current) {
      const applied = raw.prepare('select name from schema_migrations').pluck().all() as string[];
      const pending = Object.keys(migrations).filter((name) => !applied.includes(name));
      if (pending.length)
        throw new Error(
          `${file} was written by an older Trailproof: migrations ${pending.join(', ')} are not applied yet (trailproof serve applies them when it opens the file)`,
        );
      const unknown = applied.filter((name) => !(name in migrations));
      if (unknown.length) throw new Error(`${file} was written by a newer Trailproof (migration ${unknown[0]}): use that version`);
    }
    const problems = options.integrity ? integrityProblems(raw) : null;
    if (problems) throw new Error(`${file} fails SQLite's integrity check: ${problems}`);
    return raw;
  } catch (error) {
    raw.close();
    throw error;
  }
}

/** A SQLite error on `file` as a sentence that names the file. */
function described(file: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return error;
  const what =
    code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB' ? 'is damaged' : code.startsWith('SQLITE_CANTOPEN') ? 'cannot be opened' : 'cannot be read';
  return new Error(`${file} ${what}: ${(error as Error).message} (${code})`);
}
