/**
 * Group commit for SQLite: transactions that arrive while another batch is being written share
 * one database transaction, so N concurrent writes cost one fsync instead of N. Each job runs
 * inside its own savepoint, so a job that fails rolls back alone; no job's promise resolves
 * before the shared COMMIT has returned, so nothing is acknowledged before it is durable.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './database.ts';

interface Job<T> {
  work: (trx: Transaction<Database>) => Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  /** Most jobs in one database transaction (bounds how long one batch holds the writer). */
  maxBatch?: number;
  /** Called after each COMMIT that succeeded (the WAL checkpointer copies what it wrote). */
  afterCommit?: () => void;
}

/**
 * Returns a `transaction(work)` function over `db` that batches concurrent callers.
 * Only for a single-connection database (SQLite through Kysely), where jobs run one after another anyway.
 */
export function groupCommit(db: Kysely<Database>, options: GroupCommitOptions = {}) {
  const { maxBatch = 64, afterCommit } = options;
  let queue: Array<Job<any>> = [];
  let writing = false;
  let scheduled = false;

  async function writeBatches() {
    writing = true;
    try {
      while (queue.length) {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
        try {
          await db.transaction().execute(async (trx) => {
            for (const job of batch) {
              await sql`savepoint job`.execute(trx);
              try {
                const value = await job.work(trx);
                await sql`release savepoint job`.execute(trx);
                outcomes.push({ ok: true, value });
              } catch (error) {
                await sql`rollback to savepoint job`.execute(trx);
                await sql`release savepoint job`.execute(trx);
                outcomes.push({ ok: false, error });
              }
            }
          });
        } catch (error) {
          // The COMMIT itself failed (disk full, I/O error): nothing of the batch is durable.
          batch.forEach((job) => job.reject(error));
          continue;
        }
        afterCommit?.();
        batch.forEach((job, i) => {
          const outcome = outcomes[i]!;
          if (outcome.ok) job.resolve(outcome.value);
          else job.reject(outcome.error);
        });
      }
    } finally {
      writing = false;
    }
  }

  return function transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve, reject });
      // Start on the next turn of the event loop, so that writes arriving together (requests
      // whose reads finished in the same turn) share the batch; jobs queued while a batch is
      // being written wait for the next one.
      if (!writing && !scheduled) {
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          void writeBatches();
        });
      }
    });
  };
}
