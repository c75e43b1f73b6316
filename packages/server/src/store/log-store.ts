/**
 * The transparency log as a store provides it: the signing key and origin loaded (or made) as
 * the store opens, and checkpoints made after the writes that grew a tree (see log-checkpoints.ts).
 */
import type { Db } from './database.ts';
import { makeCheckpoints } from './queries/log-checkpoints.ts';
import { loadLogSigning, type LogSigning, type LogSigningOptions } from './log-signing.ts';

export interface LogOptions extends LogSigningOptions {
  /** At most one checkpoint per organisation per this many milliseconds (default 1000). */
  checkpointIntervalMs?: number;
}

/** What the store adds for the log beside its queries. */
export interface LogParts {
  /** The signer (its verifier key is published) and the origin's host part. */
  readonly logSigning: LogSigning;
  /** Signs a checkpoint of every tree that grew since its latest one, now (tests; shutdown). */
  makeCheckpoints(): Promise<void>;
}

export interface StartedLog extends LogParts {
  /** Call after each commit that may have appended leaves. */
  changed(): void;
  close(): Promise<void>;
}

/**
 * Loads the signer and starts making checkpoints on `db` (the writer), with one made now for trees
 * that grew meanwhile. `reader`: a read connection for the trees (SQLite: the writer thread is then
 * paused only for the insert).
 */
export async function startLog(db: Db, options: LogOptions = {}, reader?: Db): Promise<StartedLog> {
  const logSigning = await loadLogSigning(db, options);
  const intervalMs = options.checkpointIntervalMs ?? 1000;
  const schedule = checkpointSchedule(
    (now) => makeCheckpoints(db, logSigning, { intervalMs: now ? 0 : intervalMs, reader }),
    intervalMs,
    // A checkpoint that fails is made by the next run (the tree is still ahead of it): logged, not fatal.
    (error) => process.emitWarning(`trailproof: a log checkpoint failed: ${(error as Error).message}`),
  );
  // Trees that grew after the last checkpoint (writes before a shutdown, migration 0017) are signed now.
  schedule.changed();
  return {
    logSigning,
    makeCheckpoints: () => schedule.flush(),
    changed: () => schedule.changed(),
    // What grew after the last run is signed at the next start (see above).
    close: () => schedule.close(),
  };
}

/**
 * Runs `make` after writes (`changed()`), at most once per `intervalMs`, and once more after an
 * interval when it deferred a tree, so that the latest state of a burst gets its checkpoint too.
 * `make(true)` (from `flush`) ignores the interval.
 */
export function checkpointSchedule(make: (now: boolean) => Promise<{ deferred: boolean }>, intervalMs: number, onError: (error: unknown) => void) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let last = -Infinity;
  let closed = false;
  const schedule = (delay: number) => {
    if (closed || timer) return;
    timer = setTimeout(run, Math.max(0, delay));
    timer.unref();
  };
  function run(now = false) {
    timer = null;
    again = false;
    last = Date.now();
    running = make(now)
      .then(({ deferred }) => {
        if (deferred) again = true;
      }, onError)
      .finally(() => {
        running = null;
        if (again) schedule(last + intervalMs - Date.now());
      });
  }
  return {
    changed() {
      if (running) again = true;
      else schedule(last + intervalMs - Date.now());
    },
    /** Signs the trees that grew now, whatever the interval (waiting for a run under way first). */
    async flush() {
      while (running) await running;
      if (timer) clearTimeout(timer);
      timer = null;
      run(true);
      await running;
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      while (running) await running;
    },
  };
}
