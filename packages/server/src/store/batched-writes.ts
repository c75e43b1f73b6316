/** Writes of one kind that arrive together, stored together: SQLite's writer thread and PostgreSQL both batch attestations this way. */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.ts';
import type { BatchTiming } from './write-batches.ts';

export interface GroupCommitOptions {
  /** Most jobs in one database transaction (bounds how long one batch holds the writer). */
  maxBatch?: number;
  /** Called after each COMMIT that succeeded (the WAL checkpointer copies what it wrote; the metrics observe its timing). */
  afterCommit?: (batch: BatchTiming) => void;
}

/**
 * Group commit for one kind of write, in set-based statements: inputs that arrive while a batch
 * is being written are stored together by `writeMany`, in one transaction with one chain append
 * (one lock, one commit). On PostgreSQL every transaction of an organisation waits for the
 * chain's lock until the previous one has committed; on SQLite's writer thread a batch costs a
 * few statements instead of a few per input. If the batch fails before COMMIT (a deadlock, one
 * input the database refuses), each input is tried again alone, so that one bad input fails
 * alone; if the COMMIT itself fails, nothing is retried (its outcome is unknown) and every input
 * fails.
 */
export function batchedWrites<I, R>(
  db: Kysely<Database>,
  writeMany: (trx: Transaction<Database>, inputs: I[]) => Promise<R[]>,
  options: GroupCommitOptions = {},
): { write: (input: I) => Promise<R>; drained: () => Promise<void> } {
  const { maxBatch = 64, afterCommit } = options;
  type Job = { input: I; queuedAt: number; resolve: (value: R) => void; reject: (error: unknown) => void };
  let queue: Job[] = [];
  let writing: Promise<void> | null = null;

  async function write(jobs: Job[]): Promise<{ results: R[] } | { failedBeforeCommit: unknown }> {
    let inside: { error: unknown } | null = null;
    const startedAt = performance.now();
    let wroteAt = startedAt;
    const results = await db
      .transaction()
      .execute(async (trx) => {
        try {
          const results = await writeMany(
            trx,
            jobs.map((job) => job.input),
          );
          wroteAt = performance.now();
          return results;
        } catch (error) {
          inside = { error };
          throw error;
        }
      })
      .catch((error) => {
        if (inside) return null;
        throw error;
      });
    if (!results) return { failedBeforeCommit: inside!.error };
    if (afterCommit) {
      const committedAt = performance.now();
      afterCommit({
        size: jobs.length,
        waits: jobs.map((job) => (startedAt - job.queuedAt) / 1000),
        seconds: (committedAt - startedAt) / 1000,
        commitSeconds: (committedAt - wroteAt) / 1000,
      });
    }
    return { results };
  }

  async function writeBatches() {
    try {
      while (queue.length) {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        try {
          const outcome = await write(batch);
          if ('results' in outcome) {
            batch.forEach((job, i) => job.resolve(outcome.results[i]!));
          } else if (batch.length === 1) {
            batch[0]!.reject(outcome.failedBeforeCommit);
          } else {
            await Promise.all(
              batch.map(async (job) => {
                const alone = await write([job]).catch((error: unknown) => ({ failedBeforeCommit: error }));
                if ('results' in alone) job.resolve(alone.results[0]!);
                else job.reject(alone.failedBeforeCommit);
              }),
            );
          }
        } catch (error) {
          batch.forEach((job) => job.reject(error));
        }
      }
    } finally {
      writing = null;
    }
  }

  return {
    write: (input) =>
      new Promise<R>((resolve, reject) => {
        queue.push({ input, queuedAt: performance.now(), resolve, reject });
        // Started on the next turn of the event loop, so that inputs arriving together (requests
        // parsed in the same turn, messages delivered together) share the first batch too.
        writing ??= new Promise<void>((started) => setImmediate(started)).then(writeBatches);
      }),
    /** Resolves once every input given so far has been written (or has failed). */
    drained: async () => {
      while (writing) await writing;
    },
  };
}
