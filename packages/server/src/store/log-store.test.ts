// @database
/**
 * The checkpointer's schedule (issue 34): after writes it runs at once, then at most once per
 * interval; writes during a run, and a run that deferred a tree, bring one more run an interval
 * after the last; `flush` runs now whatever the interval; a failed run is reported and the next
 * one still comes; after `close` nothing runs.
 */
import { expect } from 'chai';
import { waitUntil } from '@trailproof/server/testing';
import { checkpointSchedule } from './log-store.ts';

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
  const until = async (check: () => boolean) => expect(await waitUntil(check, 1000), 'within 1 s').to.equal(true);
  /** A second run comes, at least an interval after the first began, and no third after it. */
  async function secondRunOnly(runs: Array<{ at: number }>): Promise<void> {
    await until(() => runs.length === 2);
    expect(runs[1]!.at - runs[0]!.at).to.be.at.least(intervalMs - 2);
    await settle();
    expect(runs).to.have.length(2);
  }

  it('runs once for a burst of writes, and not again before the interval', async () => {
    const { schedule, runs } = recorded();
    for (let i = 0; i < 50; i++) schedule.changed();
    await until(() => runs.length === 1);
    await settle();
    expect(runs).to.have.length(1);
    schedule.changed();
    await secondRunOnly(runs);
    await schedule.close();
  });

  it('runs once more after a write made during a run, an interval after that run began', async () => {
    const { schedule, runs } = recorded({ runMs: 20 });
    schedule.changed();
    await until(() => runs.length === 1);
    schedule.changed();
    schedule.changed();
    await secondRunOnly(runs);
    await schedule.close();
  });

  it('runs again an interval later when a run deferred a tree, with no write meanwhile', async () => {
    const { schedule, runs } = recorded({ deferOnce: true });
    schedule.changed();
    await secondRunOnly(runs);
    await schedule.close();
  });

  it('flushes at once, ignoring the interval, after the run under way', async () => {
    const { schedule, runs } = recorded({ runMs: 20 });
    schedule.changed();
    await until(() => runs.length === 1);
    await schedule.flush();
    expect(runs.map((r) => r.now)).to.deep.equal([false, true]);
    expect(runs[1]!.at - runs[0]!.at).to.be.below(intervalMs);
    await schedule.close();
  });

  it('reports a failed run and still makes the next', async () => {
    const { schedule, runs, errors } = recorded({ failFirst: true });
    schedule.changed();
    await until(() => errors.length === 1);
    expect((errors[0] as Error).message).to.equal('disk full');
    schedule.changed();
    await until(() => runs.length === 2);
    expect(errors).to.have.length(1);
    await schedule.close();
  });

  it('waits for the run under way on close, and runs nothing after', async () => {
    const { schedule, runs } = recorded({ runMs: 30, deferOnce: true });
    schedule.changed();
    await until(() => runs.length === 1);
    schedule.changed();
    await schedule.close();
    schedule.changed();
    await settle();
    expect(runs).to.have.length(1);
  });
});
