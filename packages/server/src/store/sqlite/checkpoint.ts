/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the COMMIT that
 * crosses the threshold, on the writer's connection: it copies the WAL into the database file
 * and fsyncs it, synchronously, on the server's only thread. With 100KB attachments that was
 * every other batch, and it stalled every request meanwhile. A worker thread with a connection
 * of its own copies committed pages right after each commit instead (PASSIVE: it never blocks
 * the writer nor waits for readers), once the WAL has grown past a few megabytes. The writer
 * keeps a higher automatic threshold as a bound on the WAL's size: by then the worker has copied nearly everything, so that checkpoint is
 * cheap, and it lets the next transaction restart the WAL from its beginning.
 *
 * Durability is unchanged: a commit is durable once its WAL frames are fsynced
 * (synchronous=FULL), before any request is acknowledged; checkpoints only move committed
 * pages into the database file.
 */
import { statSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type BetterSqlite3 from './driver.ts';
import { siblingModule, startModuleWorker } from './threads.ts';

/** WAL pages (of the database's page size: 16KB for a new one, 4KB for one made before) after which a writer checkpoints itself, in case the worker falls behind. */
export const walAutocheckpoint = 4000;

export interface Checkpointer {
  /** Call after each commit: the worker copies what was committed (several calls coalesce). */
  committed(): void;
  close(): Promise<void>;
}

/**
 * WAL bytes before the worker starts: below them checkpoints can wait (a WAL this small costs readers
 * nothing to look through), and a store that barely writes never pays the thread's start, which
 * under the sources' loader was most of the CPU of opening a store (bench/results/suite-parallel-2026-12-04.md).
 */
export const checkpointerStartBytes = 4 * 1024 * 1024;

/** How big the WAL of `file` is, 0 when there is none. */
function walBytes(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

/**
 * The checkpointer of the WAL-mode file `raw` writes to, whose worker starts once the WAL has
 * reached `checkpointerStartBytes`; null when the file is not in WAL mode.
 */
export function startCheckpointer(raw: BetterSqlite3.Database, file: string): Checkpointer | null {
  if (String(raw.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') return null;
  raw.pragma(`wal_autocheckpoint = ${walAutocheckpoint}`);
  let worker: Worker | undefined;
  return {
    committed: () => {
      if (!worker) {
        if (walBytes(file) < checkpointerStartBytes) return;
        worker = startModuleWorker(siblingModule('checkpoint-worker', import.meta.url), { file });
        worker.unref();
        // A checkpoint that fails is retried by the next one (or by the writer's own): nothing to report.
        worker.on('error', () => {});
      }
      worker.postMessage('commit');
    },
    // Kept alive while closing (unreferenced, the process could end before the caller resumes).
    close: async () => {
      if (!worker) return;
      const closing = worker;
      closing.ref();
      const exited = new Promise((resolve) => closing.once('exit', resolve));
      closing.postMessage('close');
      const timer = setTimeout(() => void closing.terminate(), 1000);
      await exited;
      clearTimeout(timer);
    },
  };
}
