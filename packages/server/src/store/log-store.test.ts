/**
 * The checkpointer's schedule (issue 34): after writes it runs at once, then at most once per
 * interval; writes during a run, and a run that deferred a tree, bring one more run an interval
 * after the last; `flush` runs now whatever the interval; a failed run is reported and the next
 * one still comes; after `close` nothing runs.
 */
import { expect } from 'chai';
import { checkpointSchedule } from './log-store.ts';

/** Polls `check` every few milliseconds; fails after `ms` (a pure module's test: no test database). */
async function waitUntil(check: () => boolean, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (!check()) {
    if (performance.now() > until) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('checkpoint schedule', () => {
  const intervalMs = 80;

  /** A schedule whose runs are recorded: when each began (ms) and whether it was asked to ignore the interval. */
  function recorded(options: { deferOnce?: boolean; failFirst?: boolean; runMs?: number } = {}) {
    const runs: Array<{ at: number; now: boolean }> = [];
    const errors: unknown[] = [];
    let deferOnce = options.deferOnce ?? false;
    const schedule = checkpointSchedule(
      async (now) => {
        runs.push({ at: performance.now(), now });
        if (options.runMs) await new Promise((resolve) => setTimeout(resolve, options.runMs));
        if (options.failFirst && runs.length === 1) throw new Error('disk full');
        const deferred = deferOnce;
        deferOnce = false;
        return { deferred };
      },
      intervalMs,
      (error) => errors.push(error),
    );
    return { schedule, runs, errors };
  }
  const settle = (ms = intervalMs * 3) => new Promise((resolve) => setTimeout(resolve, ms));

  it('runs once for a burst of writes, and not again before the interval', async () => {
    const { schedule, runs } = recorded();
    for (let i = 0; i < 50; i++) schedule.changed();
    await waitUntil(() => runs.length === 1, 1000);
    await settle();
    expect(runs).to.have.length(1);
    schedule.changed();
    await waitUntil(() => runs.length === 2, 1000);
    expect(runs[1]!.at - runs[0]!.at).to.be.at.least(intervalMs - 2);
    await schedule.close();
  });

  it('runs once more after a write made during a run, an interval after that run began', async () => {
    const { schedule, runs } = recorded({ runMs: 20 });
    schedule.changed();
    await waitUntil(() => runs.length === 1, 1000);
    schedule.changed();
    schedule.changed();
    await waitUntil(() => runs.length === 2, 1000);
    expect(runs[1]!.at - runs[0]!.at).to.be.at.least(intervalMs - 2);
    await settle();
    expect(runs).to.have.length(2);
    await schedule.close();
  });

  it('runs again an interval later when a run deferred a tree, with no write meanwhile', async () => {
    const { schedule, runs } = recorded({ deferOnce: true });
    schedule.changed();
    await waitUntil(() => runs.length === 2, 1000);
    expect(runs[1]!.at - runs[0]!.at).to.be.at.least(intervalMs - 2);
    await settle();
    expect(runs).to.have.length(2);
    await schedule.close();
  });

  it('flushes at once, ignoring the interval, after the run under way', async () => {
    const { schedule, runs } = recorded({ runMs: 20 });
    schedule.changed();
    await waitUntil(() => runs.length === 1, 1000);
    await schedule.flush();
    expect(runs.map((r) => r.now)).to.deep.equal([false, true]);
    expect(runs[1]!.at - runs[0]!.at).to.be.below(intervalMs);
    await schedule.close();
  });

  it('reports a failed run and still makes the next', async () => {
    const { schedule, runs, errors } = recorded({ failFirst: true });
    schedule.changed();
    await waitUntil(() => errors.length === 1, 1000);
    expect((errors[0] as Error).message).to.equal('disk full');
    schedule.changed();
    await waitUntil(() => runs.length === 2, 1000);
    expect(errors).to.have.length(1);
    await schedule.close();
  });

  it('waits for the run under way on close, and runs nothing after', async () => {
    const { schedule, runs } = recorded({ runMs: 30, deferOnce: true });
    schedule.changed();
    await waitUntil(() => runs.length === 1, 1000);
    schedule.changed();
    await schedule.close();
    schedule.changed();
    await settle();
    expect(runs).to.have.length(1);
  });
});
