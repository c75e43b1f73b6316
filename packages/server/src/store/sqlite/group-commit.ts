/**
 * Group commit for SQLite: transactions that arrive while another batch is being written share
 * one database transaction, so N concurrent writes cost one fsync instead of N. Each job runs
 * inside its own savepoint, so a job that fails rolls back alone; no job's promise resolves
 * before the shared COMMIT has returned, so nothing is acknowledged before it is durable.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../database.ts';
import { batchedWrites, type GroupCommitOptions } from '../batched-writes.ts';

type Work = (trx: Transaction<Database>) => Promise<unknown>;
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Returns a `transaction(work)` function over `db` that batches concurrent callers (the batches
 * of `batchedWrites`, each job in a savepoint of its batch's transaction).
 * Only for a single-connection database (SQLite through Kysely), where jobs run one after another anyway.
 */
export function groupCommit(db: Kysely<Database>, options: GroupCommitOptions = {}) {
  const batches = batchedWrites<Work, Outcome>(
    db,
    async (trx, works) => {
      const outcomes: Outcome[] = [];
      for (const work of works) {
        await sql`savepoint job`.execute(trx);
        try {
          const value = await work(trx);
          await sql`release savepoint job`.execute(trx);
          outcomes.push({ ok: true, value });
        } catch (error) {
          try {
            await sql`rollback to savepoint job`.execute(trx);
            await sql`release savepoint job`.execute(trx);
          } catch {
            // No savepoint left: SQLite rolled the whole transaction back itself (SQLITE_FULL on a
            // full disk, SQLITE_IOERR). The batch is lost; the job's own error says why, and each job
            // is tried again alone (batchedWrites).
            throw error;
          }
          outcomes.push({ ok: false, error });
        }
      }
      return outcomes;
    },
    options,
  );

  return async function transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    const outcome = await batches.write(work);
    if (!outcome.ok) throw outcome.error;
    return outcome.value as T;
  };
}
