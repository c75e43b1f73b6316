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

/** Opens (creating if needed) the SQLite file and returns a Kysely instance over it. */
export function openSqlite(file: string, options: SqliteOptions = {}): { db: Kysely<Database>; raw: BetterSqlite3.Database } {
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
  return { db, raw };
}
