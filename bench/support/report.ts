/** Figures, and the report written to bench/results/. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export interface Figure {
  suite: string;
  name: string;
  value: number | null;
  unit: string;
  /** The same figure for the baseline measured in the same run, where one applies. */
  baseline: number | null;
  /** value / baseline for throughputs; for reader times, baseline time / ours (the speed-up). */
  ratio: number | null;
  /** The target in words, e.g. ">= 0.5 of baseline" or "< 20 ms". */
  target: string;
  /** Whether the target is met; null where the figure has no target (shown for context). */
  pass: boolean | null;
  note?: string;
}

export const round = (n: number | null, digits = 1) => (n === null || !Number.isFinite(n) ? null : Math.round(n * 10 ** digits) / 10 ** digits);

export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${cpu}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${process.platform} ${process.arch}`;
}

/**
 * The commit measured: its short id, with "and uncommitted changes" where the working tree
 * differs from it (figures of a dirty tree are not the commit's); "unknown" outside a git checkout.
 */
export function measuredCommit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') ? `${commit} and uncommitted changes` : commit;
  } catch {
    return 'unknown';
  }
}

export interface RunInfo {
  seconds: number;
  quick: boolean;
  only?: string;
  /** Seconds per suite. */
  timings: Record<string, number>;
  /** The commit measured (`measuredCommit`, read when the run starts). */
  commit: string;
}

/**
 * Writes the report: bench/results/latest.{md,json} for a full `pnpm bench`; a quick or partial
 * run (--quick, --only) writes bench/results/partial.{md,json} and leaves the full figures alone.
 */
export function writeReport(figures: Figure[], run: RunInfo): { md: string; file: string } {
  const dir = new URL('../results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const base = run.quick || run.only ? 'partial' : 'latest';
  const date = new Date().toISOString();
  const command = `pnpm bench${run.quick ? ' --quick' : ''}${run.only ? ` --only ${run.only}` : ''}`;
  const seconds = Math.round(run.seconds);
  writeFileSync(
    new URL(`${base}.json`, dir),
    JSON.stringify({ date, machine: machine(), commit: run.commit, command, seconds, timings: run.timings, figures }, null, 2) + '\n',
  );
  const fmt = (n: number | null, unit = '') => (n === null ? '–' : `${n}${unit ? ` ${unit}` : ''}`);
  const met = figures.filter((f) => f.pass === true).length;
  const missed = figures.filter((f) => f.pass === false).length;
  const md = [
    `# Benchmark results${run.quick ? " (quick mode: smaller data, shorter runs; not the targets' figures)" : ''}`,
    '',
    `- Command: \`${command}\``,
    `- Commit: ${run.commit}`,
    `- Machine: ${machine()}`,
    `- Date: ${date}; run time ${Math.floor(seconds / 60)} min ${seconds % 60} s (${Object.entries(run.timings)
      .map(([k, v]) => `${k} ${v} s`)
      .join(', ')})`,
    `- Targets: ${met} met, ${missed} missed`,
    '',
    '| Suite | Figure | Value | Baseline | Ratio | Target | Met | Notes |',
    '|---|---|---:|---:|---:|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.suite} | ${f.name} | ${fmt(f.value, f.unit)} | ${fmt(f.baseline, f.unit)} | ${fmt(f.ratio)} | ${f.target} | ${f.pass === null ? '–' : f.pass ? 'yes' : '**no**'} | ${f.note ?? ''} |`,
    ),
    '',
  ].join('\n');
  writeFileSync(new URL(`${base}.md`, dir), md);
  return { md, file: `bench/results/${base}.md` };
}
