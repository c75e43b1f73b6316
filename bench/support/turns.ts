/**
 * Server and baseline measured in turns (server, baseline, server, baseline), so that a drift of
 * the shared machine between two measurements weighs on both alike, with the CPU time each side's
 * processes used over their own turns.
 */
import type { LoadResult } from './load.ts';
import { cpuCounter, perRequest, type Running } from './processes.ts';

/** One side of a comparison: its processes (for their CPU time) and how to load them for some seconds. */
export interface Side {
  processes: Running[];
  load(seconds: number): Promise<LoadResult>;
}

export interface Compared {
  ours: LoadResult;
  base: LoadResult;
  /** CPU time per answered request (µs) of each side's processes, all threads; null without /proc. */
  cpu: { ours: number | null; base: number | null };
}

/**
 * `rounds` turns of each side, `seconds` in all per side. Throughput is the mean of the turns'
 * (they last alike), p50 the mean of theirs and p99 the larger; counts add up. `afterOurs` runs
 * after each of our turns (outside both measurements).
 */
export async function inTurns(ours: Side, base: Side, seconds: number, rounds: number, afterOurs?: () => void): Promise<Compared> {
  const results = { ours: [] as LoadResult[], base: [] as LoadResult[] };
  const micros: { ours: number | null; base: number | null } = { ours: 0, base: 0 };
  const turn = async (name: 'ours' | 'base', side: Side) => {
    const cpu = cpuCounter(side.processes);
    results[name].push(await side.load(seconds / rounds));
    const used = cpu();
    micros[name] = micros[name] === null || used === null ? null : micros[name] + used;
  };
  for (let i = 0; i < rounds; i++) {
    await turn('ours', ours);
    afterOurs?.();
    await turn('base', base);
  }
  const combined = { ours: combineRounds(results.ours), base: combineRounds(results.base) };
  return { ...combined, cpu: { ours: perRequest(micros.ours, combined.ours.ok), base: perRequest(micros.base, combined.base.ok) } };
}

/** Turns of one side as one result: throughput and p50 the means, p99 the larger, counts summed. */
function combineRounds(results: LoadResult[]): LoadResult {
  const sum = (pick: (r: LoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  return {
    rps: sum((r) => r.rps) / results.length,
    p50: Math.round(sum((r) => r.p50) / results.length),
    p99: Math.max(...results.map((r) => r.p99)),
    ok: sum((r) => r.ok), non2xx: sum((r) => r.non2xx), errors: sum((r) => r.errors),
  };
}
