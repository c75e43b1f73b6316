/**
 * SQLite's hot write off the event loop. better-sqlite3 runs every statement, and the fsync of
 * every COMMIT (synchronous=FULL), on the thread that calls it: with the store's writer on the
 * server's only thread, storing attestations took most of that thread. A worker thread with a
 * connection of its own stores them instead (`writer-thread-worker.ts`), those that arrive
 * together in one transaction (`batchedWrites`, as on PostgreSQL), and answers each job only
 * after its batch's COMMIT returned: nothing is acknowledged before it is durable.
 *
 * Two connections of one process now write to one file. They take turns instead of meeting in
 * SQLite's busy handler (which would sleep on the event loop): the main thread's writer pauses
 * the worker between its batches for as long as it holds its connection (`pause`).
 */
import type { Worker } from 'node:worker_threads';
import type { Driver } from 'kysely';
import type { ArtifactAppend, ArtifactAppendResult } from '../queries/artifacts.ts';
import type { AppendResult, AttestationAppend } from '../queries/attestations.ts';
import type { BatchWriter } from '../write-batches.ts';
import type { BatchTiming } from '../write-batches.ts';
import { overrideDriver, type SqliteOptions } from './open.ts';
import { siblingModule, startModuleWorker, unbatched, workerJobs, type ErrorShape, type MessageBatch } from './threads.ts';

/** What the worker runs: store queries that take and return plain values (they cross threads). */
export interface WriterProcedures {
  appendAttestation(input: AttestationAppend): Promise<AppendResult>;
  appendArtifact(input: ArtifactAppend): Promise<ArtifactAppendResult>;
}

/** Messages to the worker. */
export type ToWriter =
  | { kind: 'run'; id: number; procedure: keyof WriterProcedures; args: unknown[] }
  | { kind: 'pause'; id: number }
  | { kind: 'resume' }
  | { kind: 'ping'; id: number }
  | { kind: 'close' };

/** Messages from the worker. */
export type FromWriter =
  | { kind: 'done'; id: number; value: unknown }
  | { kind: 'failed'; id: number; error: ErrorShape }
  | { kind: 'paused'; id: number }
  | { kind: 'committed'; writer: Exclude<BatchWriter, 'transactions'>; batch: BatchTiming }
  /** A rejection nothing handled: the worker's state is unknown. */
  | { kind: 'fatal' };

/** One at a time: `lock()` resolves, in call order, with the function that lets the next one in. */
export function turns(): () => Promise<() => void> {
  let tail: Promise<unknown> = Promise.resolve();
  return () => {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const ready = tail.then(() => release);
    tail = done;
    return ready;
  };
}

/** `driver` taking `lock` for as long as a connection is acquired (a query, or a whole transaction). */
export function lockedDriver(driver: Driver, lock: () => Promise<() => void>): Driver {
  let release: (() => void) | undefined;
  const overrides: Partial<Driver> = {
    async acquireConnection() {
      const connection = await driver.acquireConnection();
      try {
        release = await lock();
      } catch (error) {
        await driver.releaseConnection(connection);
        throw error;
      }
      return connection;
    },
    async releaseConnection(connection) {
      const held = release;
      release = undefined;
      try {
        await driver.releaseConnection(connection);
      } finally {
        held?.();
      }
    },
  };
  return overrideDriver(driver, overrides);
}

export interface WriterThread extends WriterProcedures {
  /** Starts the worker if needed and resolves once it has opened the database. */
  ready(): Promise<void>;
  /** Holds the worker between batches until the returned function is called. */
  pause(): Promise<() => void>;
  /** Lets pending jobs finish, then stops the worker. */
  close(): Promise<void>;
}

export interface WriterThreadOptions extends SqliteOptions {
  /** Called after each COMMIT of the worker (the WAL checkpointer copies what it wrote; the metrics observe its timing, by what it wrote). */
  afterCommit?: (batch: BatchTiming, writer: Exclude<BatchWriter, 'transactions'>) => void;
  /** WAL pages after which the worker's connection checkpoints itself (see checkpoint.ts). */
  walAutocheckpoint?: number;
}

/**
 * The writer thread for a SQLite file (started on its first job, so that a store that never
 * stores an attestation never starts one). If the worker dies, its pending jobs fail (a 500)
 * and the next job starts a new one.
 */
export function startWriterThread(file: string, options: WriterThreadOptions = {}): WriterThread {
  let worker: { thread: Worker; jobs: ReturnType<typeof workerJobs> } | null = null;
  let exited: Promise<void> = Promise.resolve();
  let closing = false;

  function started() {
    if (worker) return worker;
    if (closing) throw new Error('the store is closed');
    const thread = startModuleWorker(siblingModule('writer-thread-worker', import.meta.url), {
      file,
      synchronous: options.synchronous ?? 'FULL',
      maxSizeBytes: options.maxSizeBytes,
      walAutocheckpoint: options.walAutocheckpoint ?? null,
    });
    // The jobs of one turn go as one message, and the answers of one of the worker's turns (a
    // batch's, after its COMMIT) come back as one (threads.ts, batchedPost).
    const jobs = workerJobs(thread, { batched: true });
    thread.on('message', (received: FromWriter | MessageBatch) => {
      for (const message of unbatched(received)) {
        if (message.kind === 'committed') options.afterCommit?.(message.batch, message.writer);
        // A worker in an unknown state is stopped before its jobs are failed, so that none of them
        // commits after its client was told it failed (the exit handler fails them).
        else if (message.kind === 'fatal') return void thread.terminate();
        else jobs.answer(message);
      }
    });
    thread.on('error', (error) => jobs.failAll(error));
    const current = { thread, jobs };
    exited = new Promise((resolve) =>
      thread.once('exit', () => {
        if (worker === current) worker = null;
        jobs.failAll(new Error('the SQLite writer thread stopped'));
        resolve();
      }),
    );
    worker = current;
    return current;
  }

  /** `transfer`: buffers the worker takes over (see postMessage). */
  async function request<T>(message: (id: number) => ToWriter, transfer: ArrayBuffer[] = []): Promise<T> {
    return started().jobs.send<T>(message, transfer);
  }

  return {
    appendAttestation: (input) => {
      // The attachment crosses as a copy that the worker takes over: one copy, where structured
      // clone makes two. The caller's bytes stay as they are.
      const content = input.attachment ? new Uint8Array(input.attachment.content) : null;
      const args = [{ ...input, attachment: input.attachment && content ? { ...input.attachment, content } : null }];
      return request((id) => ({ kind: 'run', id, procedure: 'appendAttestation', args }), content ? [content.buffer] : []);
    },
    appendArtifact: (input) => request((id) => ({ kind: 'run', id, procedure: 'appendArtifact', args: [input] })),
    ready: () => request((id) => ({ kind: 'ping', id })),
    async pause() {
      // No worker, no writes of its own to wait for (one started meanwhile waits in its busy handler, off the event loop).
      if (!worker) return () => {};
      const { thread } = worker;
      await request((id) => ({ kind: 'pause', id }));
      return () => thread.postMessage({ kind: 'resume' } satisfies ToWriter);
    },
    async close() {
      closing = true;
      if (!worker) return;
      const { thread, jobs } = worker;
      thread.ref();
      // After the jobs gathered in this turn, so that they are stored before the worker stops.
      jobs.flush();
      thread.postMessage({ kind: 'close' } satisfies ToWriter);
      const timer = setTimeout(() => void thread.terminate(), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
