/**
 * SQLite's list queries off the event loop. better-sqlite3 runs a statement on the thread that
 * calls it, so a list that counts 10,000 environments or skips 50,000 deployments held the
 * server's only thread for as long as it took: every other request waited behind it, and the
 * server used one core of the machine. Reader threads, each with a read-only connection of its
 * own (WAL: they see every committed transaction), run the lists instead
 * (`reader-thread-worker.ts`, `reader-procedures.ts`), while the event loop goes on with HTTP.
 *
 * Threads start on the first list (or with `ready()`), in the background: until one has opened
 * the database, `run` answers `undefined` and the caller reads on its own connection, so no
 * request waits for a thread to start.
 */
import type { Worker } from 'node:worker_threads';
import type { ReaderProcedures } from './reader-procedures.ts';
import { siblingModule, startModuleWorker, unbatched, workerJobs, type ErrorShape, type MessageBatch } from './threads.ts';

type Procedure = keyof ReaderProcedures;
type ArgsOf<K extends Procedure> = ReaderProcedures[K] extends (db: any, ...args: infer A) => any ? A : never;
type ResultOf<K extends Procedure> = ReturnType<ReaderProcedures[K]>;

/** Messages to a reader thread (the jobs of one turn come as a `MessageBatch`). */
export type ToReader = { kind: 'run'; id: number; procedure: Procedure; args: unknown[] } | { kind: 'close' };

/** Messages from a reader thread (the answers of one turn come as a `MessageBatch`). */
export type FromReader = { kind: 'ready' } | { kind: 'done'; id: number; value: unknown } | { kind: 'failed'; id: number; error: ErrorShape };

export interface ReaderThreads {
  /** Runs a list on the least busy thread that is ready; `undefined` while none is (read yourself). */
  run<K extends Procedure>(procedure: K, args: ArgsOf<K>): ResultOf<K> | undefined;
  /** Starts the threads if needed and resolves once every one has opened the database. */
  ready(): Promise<void>;
  /** Stops the threads; lists still running on them fail. */
  close(): Promise<void>;
}

interface Thread {
  worker: Worker;
  opened: boolean;
  jobs: ReturnType<typeof workerJobs>;
  exited: Promise<void>;
  started: Promise<void>;
}

/** `count` reader threads for a SQLite file (none: every list stays on the caller's connection). */
export function startReaderThreads(file: string, count: number): ReaderThreads {
  let threads: Thread[] = [];
  let closing = false;

  function start(): Thread {
    const worker = startModuleWorker(siblingModule('reader-thread-worker', import.meta.url), { file });
    let opened!: () => void;
    const thread: Thread = {
      worker,
      opened: false,
      jobs: workerJobs(worker, { batched: true }),
      exited: Promise.resolve(),
      started: new Promise((resolve) => (opened = resolve)),
    };
    worker.on('message', (received: FromReader | MessageBatch) => {
      for (const message of unbatched(received)) {
        if (message.kind === 'ready') {
          thread.opened = true;
          opened();
        } else {
          thread.jobs.answer(message);
        }
      }
    });
    worker.on('error', () => {});
    thread.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        const wasOpen = thread.opened;
        thread.opened = false;
        opened();
        thread.jobs.failAll(new Error('the SQLite reader thread stopped'));
        // One that stops unasked after it had opened is replaced (its lists go to the caller's
        // connection meanwhile); one that could not open is not retried.
        if (!closing && wasOpen) threads = threads.map((t) => (t === thread ? start() : t));
        resolve();
      }),
    );
    return thread;
  }

  const started = () => {
    if (!threads.length && !closing) threads = Array.from({ length: count }, start);
    return threads;
  };

  return {
    run(procedure, args) {
      let best: Thread | undefined;
      for (const thread of started()) {
        if (thread.opened && (!best || thread.jobs.size < best.jobs.size)) best = thread;
      }
      return best?.jobs.send((id) => ({ kind: 'run', id, procedure, args }) satisfies ToReader) as ResultOf<typeof procedure> | undefined;
    },
    async ready() {
      await Promise.all(started().map((thread) => thread.started));
    },
    async close() {
      closing = true;
      await Promise.all(
        threads.map(async (thread) => {
          // One still starting has nothing to finish.
          if (!thread.opened) return void (await thread.worker.terminate());
          thread.jobs.flush();
          thread.worker.postMessage({ kind: 'close' } satisfies ToReader);
          const timer = setTimeout(() => void thread.worker.terminate(), 5_000);
          await thread.exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}
