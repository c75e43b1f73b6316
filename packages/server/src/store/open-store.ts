/**
 * Opening a store by its location. Each engine's modules load when a store of it opens, so that
 * a server on SQLite never loads PostgreSQL's driver, nor one on PostgreSQL SQLite's threads.
 */
import type { PostgresOptions } from './postgres/open.ts';
import type { SqliteOptions } from './sqlite/open.ts';
import type { LogOptions, Store } from './types.ts';

/** True for `postgres://` and `postgresql://` URLs. */
export const isPostgresUrl = (location: string) => /^postgres(ql)?:\/\//i.test(location);

/** Opens a PostgreSQL URL or a SQLite file path. */
export async function openStore(location: string, options: { sqlite?: SqliteOptions; postgres?: PostgresOptions; log?: LogOptions } = {}): Promise<Store> {
  if (isPostgresUrl(location)) {
    const { openPostgresStore } = await import('./postgres/store.ts');
    return openPostgresStore(location, { ...options.postgres, log: options.log });
  }
  const { openSqliteStore } = await import('./sqlite/store.ts');
  return openSqliteStore(location, { ...options.sqlite, log: options.log });
}
