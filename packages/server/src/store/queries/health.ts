/** The query behind the health check (`GET /health` and `GET /readyz`, http/health.ts). */
import { sql } from 'kysely';
import { isSqlite, type Db } from '../database.ts';
import { migrationsPendingCode, readOnlySqlState, StoreError } from '../errors.ts';
import { migrations } from '../migrations.ts';

/** The newest migration this server needs. */
const latestMigration = Object.keys(migrations).sort().at(-1)!;

function migrated(applied: string | null | undefined): void {
  // A newer release's migrations are fine (its servers may run beside this one during a rollout).
  if (!applied || applied < latestMigration) {
    throw new StoreError(
      'migrations-pending',
      `the database's newest migration is ${applied ?? 'none'}, this server needs ${latestMigration}`,
      migrationsPendingCode,
    );
  }
}

/**
 * Reads one row of a table every database of the store has: the connection answers and the
 * schema is there. On SQLite it reads the file's pages (a bare `select 1` never opens them); on
 * PostgreSQL it takes a pooled connection and runs one statement on it, which also asks whether
 * the server takes writes: a standby (after a failover the address still points at the old
 * primary) or a cluster made read-only answers every read and refuses every write, so it fails
 * the check as `read-only`. Both read the newest migration applied, which must be the one
 * this server needs. Resolves, or throws what the database threw.
 */
export async function checkDatabase(db: Db): Promise<void> {
  const newest = sql<string>`(select name from schema_migrations order by name desc limit 1)`;
  if (isSqlite(db)) {
    const {
      rows: [row],
    } = await sql<{ migration: string | null }>`select (select id from organizations limit 1) as any_id, ${newest} as migration`.execute(db);
    return migrated(row?.migration);
  }
  const {
    rows: [state],
  } = await sql<{ standby: boolean; read_only: string; migration: string | null }>`
    select (select id from organizations limit 1) as any_id, pg_is_in_recovery() as standby, current_setting('transaction_read_only') as read_only, ${newest} as migration
  `.execute(db);
  if (state?.standby || state?.read_only === 'on') {
    const why = state.standby ? 'a standby, in recovery' : 'transaction_read_only is on';
    throw new StoreError('read-only', `the database takes no writes (${why})`, readOnlySqlState);
  }
  migrated(state?.migration);
}

export const reads = { checkDatabase };
export const writes = {};
