/**
 * `trailproof serve --workers N`: N server processes answering on one port (node:cluster), so
 * that a machine's cores answer requests rather than one event loop. Each worker is a whole
 * server on the same database; what they share lives there (evidence, tokens, sessions, the
 * log's tree and checkpoints), and what a process remembers of it is dropped at every commit
 * of any process (SQLite's `PRAGMA data_version`), as with the CLI's commands writing beside a
 * server. Limits that are counts in memory (connections, bodies in flight, one verification at
 * a time) are each worker's own; a scrape of `/metrics` answers for the whole pool.
 *
 * The primary serves no request: it starts the workers at once and prepares the database once
 * (migrations, the log's signing key) meanwhile, before any worker opens it (a worker loads its
 * modules and binds the port, then asks `preparedDatabase()` and waits for the answer), adds up their metrics for a scrape
 * (metrics-pool.ts), and stops them all on SIGTERM or SIGINT. The pool answers from its first
 * worker's `listening` on (a line `pool listening`); the others join as they listen. A worker
 * that dies is replaced while the others go on serving, after a wait that grows while workers
 * keep dying young (restart-policy.ts, which also says when the pool stops instead), and the
 * connections handed to it that it never took are closed (worker-handoffs.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../logger.ts';
import { answerPoolMetrics } from '../metrics-pool.ts';
import { restartPolicy, type RestartPolicyOptions } from './restart-policy.ts';
import { closeHandoffsWhenGone } from './worker-handoffs.ts';

export interface WorkerPoolOptions {
  /** Worker processes (at least 2; one is `serve` without a pool). */
  count: number;
  logger: Logger;
  /** Run once before any worker starts: opens and closes the database. */
  prepare(): Promise<void>;
  /** When a worker that died is started again (restart-policy.ts has the defaults). */
  restarts?: RestartPolicyOptions;
}

/** What a worker asks the primary before it opens the database, and the answer. */
const askPrepared = 'trailproof:prepared?';
const prepared = 'trailproof:prepared';

/** In a worker: resolves once the primary has prepared the database. */
export function preparedDatabase(): Promise<void> {
  return new Promise((resolve) => {
    const answered = (message: { type?: string } | null) => {
      if (message?.type !== prepared) return;
      process.off('message', answered);
      resolve();
    };
    process.on('message', answered);
    process.send!({ type: askPrepared });
  });
}

/** Runs in the primary process until the workers have stopped; the workers run `serve` as usual. */
export async function runWorkerPool({ count, logger, prepare, restarts }: WorkerPoolOptions): Promise<void> {
  // Workers load their modules while the database is prepared; each opens it only once asked and answered.
  const preparing = prepare();
  cluster.on('message', (worker, message: { type?: string } | null) => {
    if (message?.type !== askPrepared) return;
    void preparing.then(() => worker.isConnected() && worker.send({ type: prepared }));
  });
  const policy = restartPolicy(restarts);
  const live = new Set<Worker>();
  const listeningSince = new Map<Worker, number>();
  const pending = new Set<NodeJS.Timeout>();
  let announced = false;
  let stopping = false;

  const start = () => {
    const worker = cluster.fork();
    live.add(worker);
    closeHandoffsWhenGone(worker);
    worker.once('listening', (address) => {
      listeningSince.set(worker, performance.now());
      policy.listened();
      if (announced) return;
      announced = true;
      const host = address.addressType === 6 ? `[${address.address}]` : address.address;
      logger.info({ msg: 'pool listening', url: `http://${host}:${address.port}`, workers: count, pid: process.pid });
    });
    worker.once('exit', (code, signal) => {
      live.delete(worker);
      const since = listeningSince.get(worker);
      listeningSince.delete(worker);
      if (stopping) {
        if (live.size === 0) process.exit(process.exitCode ?? 0);
        return;
      }
      const next = policy.died({ listenedMs: since === undefined ? undefined : performance.now() - since, listening: listeningSince.size });
      const pid = worker.process.pid;
      if ('stop' in next) {
        logger.error({ msg: next.stop, pid, code, signal });
        process.exitCode = 1;
        stop();
        return;
      }
      const msg = since === undefined ? 'a worker stopped before it listened: starting another' : 'a worker stopped: starting another';
      logger.error({ msg, pid, code, signal, restartInMs: next.restartInMs });
      const timer = setTimeout(() => {
        pending.delete(timer);
        start();
      }, next.restartInMs);
      pending.add(timer);
    });
  };

  function stop() {
    stopping = true;
    for (const timer of pending) clearTimeout(timer);
    pending.clear();
    if (live.size === 0) process.exit(process.exitCode ?? 0);
    for (const worker of live) worker.process.kill('SIGTERM');
  }

  answerPoolMetrics();
  for (let i = 0; i < count; i++) start();
  logger.info({ msg: 'workers started', workers: count, pid: process.pid });
  // A database that cannot be prepared ends the pool, as it ended the command before any worker started.
  await preparing.catch((error: unknown) => {
    stopping = true;
    for (const worker of live) worker.process.kill('SIGTERM');
    throw error;
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ msg: 'shutting down', signal });
      stop();
    });
  }
}
