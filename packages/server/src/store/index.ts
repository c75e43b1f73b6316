/**
 * The store: every query the server makes, over Kysely, so that SQLite and PostgreSQL share one
 * code path. The queries live one module per resource in `queries/`, each saying which of them
 * read and which write; `registry.ts` binds them; `sqlite/` and `postgres/` assemble the same
 * `Store` (types.ts) each its own way. Open one with `openStore`.
 */
import { openPostgresStore } from './postgres/store.ts';
import type { PostgresOptions } from './postgres/open.ts';
import { openSqliteStore } from './sqlite/store.ts';
import type { SqliteOptions } from './sqlite/open.ts';
import type { LogOptions, Store } from './types.ts';

/** True for `postgres://` and `postgresql://` URLs. */
export const isPostgresUrl = (location: string) => /^postgres(ql)?:\/\//i.test(location);

/** Opens a PostgreSQL URL or a SQLite file path. */
export function openStore(location: string, options: { sqlite?: SqliteOptions; postgres?: PostgresOptions; log?: LogOptions } = {}): Promise<Store> {
  return isPostgresUrl(location)
    ? openPostgresStore(location, { ...options.postgres, log: options.log })
    : openSqliteStore(location, { ...options.sqlite, log: options.log });
}

export { createStore } from './registry.ts';
export { openPostgresStore } from './postgres/store.ts';
export { InMemoryDatabaseError, openSqliteStore } from './sqlite/store.ts';
export type { PostgresOptions } from './postgres/open.ts';
export type { SqliteOptions } from './sqlite/open.ts';
export type * from './types.ts';
export { originOf } from './log-signing.ts';
