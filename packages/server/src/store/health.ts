/** The query behind the health check (`GET /health`, http/health.ts). */
import type { Db } from './database.ts';

/**
 * Reads one row of a table every database of the store has: the connection answers and the
 * schema is there. On SQLite it reads the file's pages (a bare `select 1` never opens them); on
 * PostgreSQL it takes a pooled connection and runs a statement on it. Resolves, or throws what
 * the database threw.
 */
export async function checkDatabase(db: Db): Promise<void> {
  await db.selectFrom('organizations').select('id').limit(1).execute();
}
