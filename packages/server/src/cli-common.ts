/** What the commands of `trailproof` share: usage errors, where the database is, a store for one command. */
import { isPostgresUrl, openStore, type Store } from './store/index.ts';

/** A mistake in the command line: shown with the usage, exit status 2. */
export class UsageError extends Error {}

/** The flags that name the database, for `parseArgs`. */
export const databaseOptions = { db: { type: 'string' }, database: { type: 'string' } } as const;

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
  if (!isPostgresUrl(value)) throw new UsageError(`${source} takes a postgres:// URL (use --db or TRAILPROOF_DB for a SQLite file), not '${redacted(value).slice(0, 60)}'`);
  return value;
}

/** A location for logs and messages: any URL without its password. */
export const redacted = (location: string) => location.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

/** Opens the store the flags name, runs `work` on it, and closes it. */
export async function withStore<T>(values: { db?: string; database?: string }, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(databaseLocation(values));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Unix seconds as an ISO 8601 time in UTC. */
export const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString();
