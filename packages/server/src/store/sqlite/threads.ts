/**
 * What the store's worker threads (the SQLite writer thread, the reader threads, the checkpointer)
 * share: starting a worker on a module beside the caller, and errors that keep their `code`
 * across the thread boundary.
 */
import { createRequire } from 'node:module';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { Slots } from '../../support/slots.ts';

/**
 * The module `name` beside `base` (the caller's `import.meta.url`), with the caller's own
 * extension: `.js` in the built package, `.ts` where the sources run under tsx (tests, `tsx`).
 */
export function siblingModule(name: string, base: string): URL {
  const extension = /\.[cm]?[jt]s$/.exec(new URL(base).pathname)?.[0] ?? '.js';
  return new URL(`./${name}${extension}`, base);
}

// Only for a TypeScript entry, when the sources run under tsx: a worker does not run the
// process's `--import` hooks, so it registers tsx's loader itself before loading its entry.
const typescriptBootstrap = `
const { workerData } = require('node:worker_threads');
import(require('node:url').pathToFileURL(workerData.tsxApi).href).then(({ register }) => {
  register();
  return import(workerData.entry);
});
`;

/**
 * A worker running the module at `entry` (built JavaScript, or a .ts source under tsx), with `data`
 * as its workerData and `resourceLimits` as its bounds on memory.
 */
export function startModuleWorker(entry: URL, data: Record<string, unknown>, resourceLimits?: ResourceLimits): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData: data, resourceLimits });
  // tsx's ES module API (its CommonJS twin, which require finds, registers hooks it cannot resolve).
  const tsxApi = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  return new Worker(typescriptBootstrap, { eval: true, workerData: { ...data, entry: entry.href, tsxApi }, resourceLimits });
}

/** An answer to a job: its value, or the error it failed with. */
export type JobAnswer = { kind: 'failed'; id: number; error: ErrorShape } | { kind: string; id: number; value?: unknown };

/** Several messages posted as one (see `batchedPost`). */
export interface MessageBatch {
  kind: 'batch';
  messages: unknown[];
}

/**
 * A `post` that gathers the messages of one turn of the event loop and posts them as one at its
 * end (a `MessageBatch` when there are several), with the buffers each is to transfer: each
 * message posted wakes the receiving thread and costs both threads time, and under load several
 * jobs arrive in one turn. `flush()` posts what is gathered at once.
 */
export function batchedPost(postMessage: (message: unknown, transfer: ArrayBuffer[]) => void): {
  post: (message: unknown, transfer?: ArrayBuffer[]) => void;
  flush: () => void;
} {
  let gathered: unknown[] = [];
  let transfers: ArrayBuffer[] = [];
  const flush = () => {
    const messages = gathered;
    const transfer = transfers;
    gathered = [];
    transfers = [];
    if (messages.length) postMessage(messages.length === 1 ? messages[0] : ({ kind: 'batch', messages } satisfies MessageBatch), transfer);
  };
  return {
    post(message, transfer = []) {
      transfers.push(...transfer);
      if (gathered.push(message) === 1) setImmediate(flush);
    },
    flush,
  };
}

/** Each message of `message`, a `MessageBatch` or a single one. */
export const unbatched = <T>(message: T | MessageBatch): T[] =>
  (message as MessageBatch | null)?.kind === 'batch' ? ((message as MessageBatch).messages as T[]) : [message as T];

/**
 * The jobs sent to one worker and not yet answered, matched to their answers by id (the number of
 * the job's slot, reused once it is answered; see slots.ts). The worker is referenced while any is
 * pending (a script awaiting one must not exit), not otherwise. With `batched`, the jobs of one
 * turn are posted together (`batchedPost`; the worker must unpack a `MessageBatch`), with the
 * buffers they transfer. Once `failAll` has run (the worker failed or stopped), later jobs fail
 * at once with the same error and late answers are ignored, so none can settle a job that reused
 * the id of one already failed.
 */
export function workerJobs(worker: Worker, options: { batched?: boolean } = {}) {
  const pending = new Slots<{ resolve: (value: any) => void; reject: (error: unknown) => void }>();
  let failedWith: { error: unknown } | null = null;
  const settle = () => (pending.size ? worker.ref() : worker.unref());
  const outbox = options.batched
    ? batchedPost((message, transfer) => {
        try {
          worker.postMessage(message, transfer);
        } catch (error) {
          // A message that cannot cross (a value structured clone refuses) fails the jobs it carried,
          // as posting it alone would have: thrown here, at the end of a turn, it would end the process.
          for (const job of unbatched(message)) {
            const id = (job as { id?: unknown }).id;
            if (typeof id === 'number') fail(id, error);
          }
        }
      })
    : null;
  /** The pending job `id`, no longer pending. */
  const take = (id: number) => {
    const job = pending.take(id);
    if (job) settle();
    return job;
  };
  const fail = (id: number, error: unknown) => take(id)?.reject(error);
  settle();
  return {
    /** Posts the jobs gathered for this turn now (before a message that must follow them). */
    flush: () => outbox?.flush(),
    /** How many are pending. */
    get size() {
      return pending.size;
    },
    /** Posts the message built for a new job's id (`transfer`: buffers the worker takes over); resolves with its answer. */
    send<T>(message: (id: number) => unknown, transfer: ArrayBuffer[] = []): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (failedWith) return reject(failedWith.error);
        const id = pending.add({ resolve, reject });
        settle();
        if (outbox) outbox.post(message(id), transfer);
        else worker.postMessage(message(id), transfer);
      });
    },
    /** Settles the job an answer is for (a `failed` one rejects, any other resolves with its value). */
    answer(message: JobAnswer) {
      if (failedWith) return;
      const job = take(message.id);
      if (!job) return;
      if (message.kind === 'failed') job.reject(fromErrorShape((message as { error: ErrorShape }).error));
      else job.resolve((message as { value?: unknown }).value);
    },
    /** Fails every pending job with `error`, and every job sent later (the worker failed or stopped). */
    failAll(error: unknown) {
      failedWith ??= { error };
      for (const job of pending.takeAll()) job.reject(error);
      settle();
    },
  };
}

/** An error as it crosses the thread boundary (structured clone keeps neither class nor `code`). */
export interface ErrorShape {
  name: string;
  message: string;
  stack?: string;
  code?: unknown;
}

export function toErrorShape(error: unknown): ErrorShape {
  const e = (error ?? {}) as Partial<ErrorShape>;
  const code = typeof e.code === 'string' || typeof e.code === 'number' ? e.code : undefined;
  return { name: String(e.name ?? 'Error'), message: String(e.message ?? error), stack: typeof e.stack === 'string' ? e.stack : undefined, code };
}

export function fromErrorShape(shape: ErrorShape): Error {
  const error = Object.assign(new Error(shape.message), { code: shape.code });
  error.name = shape.name;
  if (shape.stack) error.stack = shape.stack;
  return error;
}
