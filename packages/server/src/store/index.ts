/**
 * The store: every query the server makes, over Kysely, so that SQLite and PostgreSQL share one
 * code path. The queries live one module per resource in `queries/`, each saying which of them
 * read and which write; `registry.ts` binds them; `sqlite/` and `postgres/` assemble the same
 * `Store` (types.ts) each its own way. Open one with `openStore` (open-store.ts).
 */
export { isPostgresUrl, openStore } from './open-store.ts';
export { createStore } from './registry.ts';
export { openPostgresStore } from './postgres/store.ts';
export { InMemoryDatabaseError, openSqliteStore } from './sqlite/store.ts';
export type { PostgresOptions } from './postgres/open.ts';
export type { SqliteOptions } from './sqlite/open.ts';
export type * from './types.ts';
export { originOf } from './log-signing.ts';
