/**
 * Sides of a comparison measured in turns (server, baseline, server, baseline, ...), so that a
 * drift of the shared machine between two measurements weighs on all alike, with the CPU time
 * each side's processes used over their own turns.
 */
import type { LoadResult } from './load.ts';
import { cpuCounter, perRequest, type Running } from './processes.ts';
import { round, type Figure } from './report.ts';

/** One side of a comparison: its processes (for their CPU time) and how to load them for some seconds. */
export interface Side {
  processes: Running[];
  load(seconds: number): Promise<LoadResult>;
  /** Runs after each of this side's turns, outside every measurement (a `sync` of what it wrote). */
  after?: () => void;
}

/**
 * A side's turns combined, with the CPU time per answered request (µs) of its processes, all
 * threads (null without /proc), and each turn's throughput and p99 (ms) in the order run.
 */
export type Measured = LoadResult & { cpu: number | null; turnRps: number[]; turnP99: number[] };

/**
 * `value / baseline` turn by turn (the first turn of one side against the first of the other, ...),
 * as a note: how far the ratio of one run moved within it, e.g. "turns 0.61, 0.66".
 */
export function turnRatios(value: Measured, baseline: Measured): string {
  return `turns ${value.turnRps.map((rps, i) => (rps / baseline.turnRps[i]!).toFixed(2)).join(', ')}`;
}

/**
 * `rounds` turns of each side, in the order given, `seconds` in all per side. Throughput is the
 * mean of the turns' (they last alike), p50 the mean of theirs and p99 the larger; counts add up.
 */
export async function rotate<K extends string>(sides: Record<K, Side>, seconds: number, rounds: number): Promise<Record<K, Measured>> {
  const names = Object.keys(sides) as K[];
  const results = new Map<K, LoadResult[]>(names.map((name) => [name, []]));
  const micros = new Map<K, number | null>(names.map((name) => [name, 0]));
  for (let i = 0; i < rounds; i++) {
    for (const name of names) {
      const side = sides[name];
      const cpu = cpuCounter(side.processes);
      results.get(name)!.push(await side.load(seconds / rounds));
      const used = cpu();
      const sum = micros.get(name)!;
      micros.set(name, sum === null || used === null ? null : sum + used);
      side.after?.();
    }
  }
  const measured = {} as Record<K, Measured>;
  for (const name of names) {
    const combined = combineRounds(results.get(name)!);
    const turns = results.get(name)!;
    measured[name] = { ...combined, cpu: perRequest(micros.get(name)!, combined.ok), turnRps: turns.map((r) => r.rps), turnP99: turns.map((r) => r.p99) };
  }
  return measured;
}

/** Turns of one side as one result: throughput and p50 the means, p99 the larger, counts summed. */
function combineRounds(results: LoadResult[]): LoadResult {
  const sum = (pick: (r: LoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  return {
    rps: sum((r) => r.rps) / results.length,
    p50: round(sum((r) => r.p50) / results.length, 2)!,
    p99: Math.max(...results.map((r) => r.p99)),
    ok: sum((r) => r.ok),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
  };
}

/**
 * A read measured against the same statements in a bare handler, as its two figures: throughput
 * (at least 0.7 of the baseline's, no request failed) and p99 latency (under 20 ms).
 */
export function readFigures(suite: string, name: string, ours: Measured, base: Measured, cpuNote: string | undefined): Figure[] {
  const ratio = round(ours.rps / base.rps, 2);
  const failed = ours.non2xx + ours.errors;
  return [
    {
      suite,
      name: `${name}: throughput`,
      value: round(ours.rps),
      unit: 'req/s',
      baseline: round(base.rps),
      ratio,
      target: '>= 0.7 of baseline',
      pass: ratio !== null && ratio >= 0.7 && failed === 0,
      note: [failed ? `${failed} failed requests` : undefined, turnRatios(ours, base), cpuNote].filter(Boolean).join('; '),
    },
    {
      suite,
      name: `${name}: p99 latency`,
      value: ours.p99,
      unit: 'ms',
      baseline: base.p99,
      ratio: null,
      target: '< 20 ms',
      pass: ours.p99 < 20,
      note: `p50 ${ours.p50} ms (baseline ${base.p50} ms)`,
    },
  ];
}
