/**
 * The transparency log as a store provides it: the signing key and origin loaded (or made) as
 * the store opens, and checkpoints made after the writes that grew a tree (see log-checkpoints.ts).
 */
import type { Db } from './database.ts';
import { checkpointSchedule, makeCheckpoints } from './log-checkpoints.ts';
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

/** Loads the signer and starts making checkpoints on `db` (the writer), with one made now for trees that grew meanwhile. */
export async function startLog(db: Db, options: LogOptions = {}): Promise<StartedLog> {
  const logSigning = await loadLogSigning(db, options);
  const intervalMs = options.checkpointIntervalMs ?? 1000;
  const schedule = checkpointSchedule(
    (now) => makeCheckpoints(db, logSigning, { intervalMs: now ? 0 : intervalMs }),
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
