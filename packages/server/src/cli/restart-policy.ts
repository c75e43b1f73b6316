/**
 * When a worker pool starts another worker after one died, and when it stops instead. A worker
 * that died soon after it started (before it listened, or before it stayed up `steadyMs`) makes
 * the next start wait twice as long as the last, up to `maxDelayMs`; one that stayed up that long
 * starts the count again. The pool stops only when no worker is listening and starting one failed:
 * at its first start, the first failure (a port in use, a database it cannot open: starting again
 * would fail the same way, and the operator should see the worker's error at once); later, after
 * `giveUpAfter` failed starts in a row, so that a pool that cannot serve any more exits for its
 * supervisor to see rather than sitting on a closed port.
 */

export interface RestartPolicyOptions {
  /** The wait before starting another after the first death (1 s). */
  firstDelayMs?: number;
  /** The longest wait (30 s). */
  maxDelayMs?: number;
  /** How long a worker must have listened for its death to start the count of short lives again (60 s). */
  steadyMs?: number;
  /** Failed starts in a row, with no worker listening, after which the pool stops (5). */
  giveUpAfter?: number;
}

/** What the pool does after a worker died: start another after `restartInMs`, or stop (and why). */
export type AfterDeath = { restartInMs: number } | { stop: string };

export interface RestartPolicy {
  /** A worker listened: the pool has served. */
  listened(): void;
  /** A worker died, having listened for `listenedMs` (undefined: it never listened), with `listening` others still listening. */
  died(death: { listenedMs: number | undefined; listening: number }): AfterDeath;
}

export function restartPolicy({ firstDelayMs = 1000, maxDelayMs = 30_000, steadyMs = 60_000, giveUpAfter = 5 }: RestartPolicyOptions = {}): RestartPolicy {
  let served = false;
  let failedStarts = 0;
  let shortLives = 0;
  return {
    listened() {
      served = true;
      failedStarts = 0;
    },
    died({ listenedMs, listening }) {
      if (listenedMs === undefined) {
        failedStarts++;
        if (listening === 0 && !served) return { stop: 'a worker stopped before it listened: stopping' };
        if (listening === 0 && failedStarts >= giveUpAfter) return { stop: `no worker is listening and ${failedStarts} starts in a row failed: stopping` };
      }
      const steady = listenedMs !== undefined && listenedMs >= steadyMs;
      if (steady) shortLives = 0;
      const restartInMs = Math.min(firstDelayMs * 2 ** shortLives, maxDelayMs);
      if (!steady) shortLives = Math.min(shortLives + 1, 30);
      return { restartInMs };
    },
  };
}
