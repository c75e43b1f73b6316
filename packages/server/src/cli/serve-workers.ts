/**
 * `trailproof serve --workers N`: N server processes answering on one port (node:cluster), so
 * that a machine's cores answer requests rather than one event loop. Each worker is a whole
 * server on the same database; what they share lives there (evidence, tokens, sessions, the
 * log's tree and checkpoints), and what a process remembers of it is dropped at every commit
 * of any process (SQLite's `PRAGMA data_version`), as with the CLI's commands writing beside a
 * server. Limits that are counts in memory (connections, bodies in flight, one verification at
 * a time) are each worker's own; a scrape of `/metrics` answers for the whole pool.
 *
 * The primary serves no request: it prepares the database once (migrations, the log's signing
 * key) before any worker opens it, starts the workers, adds up their metrics for a scrape
 * (metrics-pool.ts), starts another when one dies after it listened, stops them all on SIGTERM
 * or SIGINT, and exits 1 when one fails before it listened (a port in use, say: starting it
 * again would fail the same way).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../log.ts';
import { answerPoolMetrics } from '../metrics-pool.ts';

export interface WorkerPoolOptions {
  /** Worker processes (at least 2; one is `serve` without a pool). */
  count: number;
  logger: Logger;
  /** Run once before any worker starts: opens and closes the database. */
  prepare(): Promise<void>;
  /** Wait before a worker that died is started again (1 s by default). */
  restartDelayMs?: number;
}

/** Runs in the primary process until the workers have stopped; the workers run `serve` as usual. */
export async function runWorkerPool({ count, logger, prepare, restartDelayMs = 1000 }: WorkerPoolOptions): Promise<void> {
  await prepare();
  const live = new Set<Worker>();
  const listened = new WeakSet<Worker>();
  let stopping = false;

  const start = () => {
    const worker = cluster.fork();
    live.add(worker);
    worker.once('listening', () => listened.add(worker));
    worker.once('exit', (code, signal) => {
      live.delete(worker);
      if (stopping) {
        if (live.size === 0) process.exit(process.exitCode ?? 0);
      } else if (!listened.has(worker)) {
        logger.error({ msg: 'a worker stopped before it listened: stopping', pid: worker.process.pid, code, signal });
        process.exitCode = 1;
        stop();
      } else {
        logger.error({ msg: 'a worker stopped: starting another', pid: worker.process.pid, code, signal });
        setTimeout(() => stopping || start(), restartDelayMs);
      }
    });
  };

  function stop() {
    stopping = true;
    if (live.size === 0) process.exit(process.exitCode ?? 0);
    for (const worker of live) worker.process.kill('SIGTERM');
  }

  answerPoolMetrics();
  for (let i = 0; i < count; i++) start();
  logger.info({ msg: 'workers started', workers: count, pid: process.pid });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ msg: 'shutting down', signal });
      stop();
    });
  }
}
