/**
 * Child processes for the benchmarks: the real server (started by the test suite's helpers, as
 * an operator would start it) and the bare-Koa baselines. Every child is tracked so that the
 * benchmark stops all of them at the end, also when it fails or is interrupted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildPackages, builtEnv, repositoryRoot } from '../../test/support/built.ts';
import { startServerProcess as startTestServer } from '../../test/support/processes.ts';

export { runCli, createDatabase } from '../../test/support/processes.ts';

const children = new Set<ChildProcess>();

/** Remembers a child so that `killAll` (also run on exit and on SIGINT/SIGTERM) stops it. */
export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Stops every tracked child still running (SIGKILL: used only when a benchmark is cut short). */
export function killAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

export interface Running {
  url: string;
  stop(): Promise<unknown>;
  /** CPU time the process has used so far, all its threads, in microseconds (null where /proc is not there). */
  cpuMicros(): number | null;
}

/** Clock ticks per second of /proc/PID/stat (USER_HZ: 100 on Linux for x86 and arm). */
const ticksPerSecond = 100;

/** Fields of /proc/PID/stat after the command name (which may hold spaces): [0] is the state (field 3), [1] the parent (4), [11] utime (14), [12] stime (15). */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The running children of `pid` (a `serve --workers` pool's workers). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(entry)[1]) === pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

/**
 * User + system CPU time of process `pid` and its running children (a pool's workers), all
 * threads, in microseconds; null without /proc.
 */
function processCpuMicros(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    let ticks = 0;
    for (const one of [pid, ...childrenOf(pid)]) {
      const fields = statFields(one);
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return (ticks * 1_000_000) / ticksPerSecond;
  } catch {
    return null;
  }
}

/** Starts counting the CPU time of `processes`; the returned function gives the microseconds used since (null without /proc). */
export function cpuCounter(processes: Running[]): () => number | null {
  const read = () => processes.map((p) => p.cpuMicros());
  const before = read();
  return () => {
    const after = read();
    if ([...before, ...after].some((v) => v === null)) return null;
    return after.reduce<number>((sum, v, i) => sum + v! - before[i]!, 0);
  };
}

/** Microseconds per request, rounded; null when unknown. */
export const perRequest = (micros: number | null, requests: number) => (micros === null || requests === 0 ? null : Math.round(micros / requests));

/**
 * Starts `trailproof serve` on `location` (a SQLite file or a PostgreSQL URL), as a pool of
 * `workers` (`--workers`) when more than one: the built command (dist/, built first when the
 * sources changed) run by plain node, as users run it. The TypeScript source through tsx runs with
 * source maps on, which costs a proof request 10-15 µs of CPU (docs/performance.md). Once it (each
 * worker) listens, its request log (one JSON line per request on stdout) is drained without being
 * parsed or kept, so that the benchmark's own process does not spend CPU on it during a measurement.
 */
export async function startServer(location: string, env: NodeJS.ProcessEnv = {}, workers = 1, o: { unbundled?: boolean } = {}): Promise<Running> {
  await buildPackages();
  // Unbundled: tsc's dist/cli/main.js, one module a source file, for a baseline that replaces one module with module hooks.
  const entry = o.unbundled ? 'packages/server/dist/cli/main.js' : 'packages/server/bin/trailproof.js';
  const server = await startTestServer(['--database', location, ...(workers > 1 ? ['--workers', String(workers)] : [])], env, workers, {
    command: [join(repositoryRoot, entry)],
    baseEnv: builtEnv(),
  });
  track(server.child);
  const out = server.child.stdout!;
  out.removeAllListeners('data');
  out.on('data', () => {});
  server.lines.length = 0;
  return { url: server.url, stop: () => server.stop('SIGTERM'), cpuMicros: () => processCpuMicros(server.child.pid) };
}

/** Starts a baseline script from bench/support (`baseline-write.ts`, `baseline-read.ts`) with ARGS. */
export async function startBaseline(script: string, args: string[] = []): Promise<Running> {
  const file = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = track(spawn(process.execPath, ['--import', 'tsx', file, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 120 s`)), 120_000);
    void exited.then(() => reject(new Error(`${script} exited ${child.exitCode} before listening`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { url: string }).url);
    });
  });
  return {
    url,
    cpuMicros: () => processCpuMicros(child.pid),
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Prints a progress line on stderr (stdout carries results). */
export const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
