/**
 * Opens PostgreSQL for the store through `pg`: a bounded pool, connection and statement
 * timeouts, so that a database that goes away makes requests fail fast instead of hanging,
 * and a pool that reconnects by itself when it returns.
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../database.ts';

export interface PostgresOptions {
  /** Largest number of connections this process opens (default 10). */
  maxConnections?: number;
  /** A statement running longer is cancelled (default 10 s). */
  statementTimeoutMs?: number;
  /** Waiting longer for a connection fails the request (default 3 s). */
  connectionTimeoutMs?: number;
  /** Tables live in this schema (created if needed); `public` by default. Tests use one schema each. */
  schema?: string;
  /** How the connections show in `pg_stat_activity` (`application_name`). */
  applicationName?: string;
}

// int8 (counts, bigserial ids) arrives as text by default; ids and counts here fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => Number(text));

export function openPostgres(url: string, options: PostgresOptions = {}): { db: Kysely<Database>; pool: pg.Pool } {
  const statementTimeout = options.statementTimeoutMs ?? 10_000;
  const maxConnections = options.maxConnections ?? 10;
  const pool = new pg.Pool({
    connectionString: url,
    max: maxConnections,
    // Connections once opened stay open (a fixed-size pool, as HikariCP advises), so pg-pool's
    // idle timeout never closes one: it closed them all after a quiet spell, and the
    // next burst of requests waited for as many new ones, a PostgreSQL backend each, started
    // under load (see docs/internals.md).
    min: maxConnections,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 3_000,
    statement_timeout: statementTimeout,
    query_timeout: statementTimeout + 1_000,
    idle_in_transaction_session_timeout: statementTimeout * 3,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
  });
  // A connection dropped by the server while idle: the pool discards it; nothing to crash for.
  pool.on('error', () => {});
  // One dropped while checked out (a transaction between two statements when the database goes
  // away) emits 'error' on the client itself, which would crash the process unheard: the next
  // statement on it fails and the request answers 503, so the event needs no more than a listener.
  pool.on('connect', (client) => client.on('error', () => {}));
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool };
}
