/**
 * Opens a SQLite database file for the store: WAL journal, `synchronous=FULL` (an acknowledged
 * piece of evidence survives a power cut), foreign keys on, a busy timeout for other processes.
 */
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './database.ts';

export interface SqliteOptions {
  /** `FULL` (default) fsyncs the WAL on every commit; `NORMAL` may lose the last commits on power loss. */
  synchronous?: 'FULL' | 'NORMAL';
}

/**
 * Opens (creating if needed) the SQLite file: a writer connection, and a read-only connection
 * for reads outside transactions, so that reads (tokens, lookups, lists) never wait behind a
 * write batch. WAL lets the reader see every committed transaction while the writer writes.
 */
export function openSqlite(file: string, options: SqliteOptions = {}): { db: Kysely<Database>; reader: Kysely<Database>; raw: BetterSqlite3.Database } {
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const readRaw = new BetterSqlite3(file, { readonly: true });
  readRaw.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(raw) }) });
  const reader = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(readRaw) }) });
  return { db, reader, raw };
}

/**
 * Kysely prepares every query anew; preparing is a measurable part of a small query's cost.
 * Cache prepared statements by their SQL (bounded), which is safe because better-sqlite3 runs
 * each statement to completion synchronously.
 */
function withStatementCache(database: BetterSqlite3.Database, size = 500): BetterSqlite3.Database {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return new Proxy(database, {
    get(target, property, receiver) {
      if (property === 'prepare') {
        return (source: string) => {
          let statement = cache.get(source);
          if (!statement) {
            statement = target.prepare(source);
            if (cache.size >= size) cache.delete(cache.keys().next().value!);
            cache.set(source, statement);
          }
          return statement;
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
