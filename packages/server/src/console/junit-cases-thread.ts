/**
 * A JUnit report read for its failed cases on a thread of its own, bounded in time and memory: a
 * crafted report of 2 MiB held the event loop for seconds, and a thread that reads one past its
 * bounds is ended, so that nothing a client attaches can hold a thread for long either.
 */
import { siblingModule, startModuleWorker } from '../store/sqlite/threads.ts';
import type { FailedCases } from './junit-cases.ts';
import type { FromReportReader } from './junit-cases-worker.ts';

export interface ReadingBounds {
  /** How long the reading may take once the thread has started it. */
  readingMs: number;
  /** How long the thread may take to start (load its modules) before it reads. */
  startMs: number;
  /** The thread's heap (V8's old generation), in MiB. */
  heapMiB: number;
}

/** A 2 MiB report of many cases reads in under a second on an idle machine: ample room for a loaded one. */
export const readingBounds: ReadingBounds = { readingMs: 20_000, startMs: 60_000, heapMiB: 128 };

/**
 * What the report says (`keep`: the answer is the report's own, worth keeping), or why it could not
 * be read: past a bound (kept too: the same report would take as long again), or a thread that
 * failed to start or stopped for another reason (not kept: the next view tries again).
 */
export function failedCasesOnThread(report: Uint8Array, bounds: ReadingBounds = readingBounds): Promise<{ failed: FailedCases; keep: boolean }> {
  return new Promise((resolve) => {
    const worker = startModuleWorker(
      siblingModule('junit-cases-worker', import.meta.url),
      { report },
      { maxOldGenerationSizeMb: bounds.heapMiB, maxYoungGenerationSizeMb: Math.max(4, bounds.heapMiB / 8) },
    );
    // Neither the thread nor its bound keeps a stopping process alive: the page that waits does.
    worker.unref();
    let timer = setTimeout(
      () => end({ unreadable: 'The report could not be summarised here: its reader did not start in time. Try again later.' }, false),
      bounds.startMs,
    ).unref();
    let settled = false;
    let reading = false;
    const end = (failed: FailedCases, keep: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve({ failed, keep });
    };
    worker.on('message', (message: FromReportReader) => {
      if (settled) return;
      if (message.kind === 'read') return end(message.failed, true);
      reading = true;
      clearTimeout(timer);
      const seconds = bounds.readingMs / 1000;
      timer = setTimeout(() => end({ unreadable: `The report could not be summarised within ${seconds} s: download it.` }, true), bounds.readingMs).unref();
    });
    worker.once('error', (error) => {
      // Out of memory while reading is the report's doing; before it, the bound's.
      const outOfMemory = (error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      if (outOfMemory && reading) end({ unreadable: `The report could not be summarised within ${bounds.heapMiB} MiB of memory: download it.` }, true);
      else end({ unreadable: 'The report could not be summarised here (its reader failed). Try again later.' }, false);
    });
    worker.once('exit', () => end({ unreadable: 'The report could not be summarised here (its reader stopped). Try again later.' }, false));
  });
}
