/**
 * Start-up: how long `trailproof serve` (the built command, on an existing SQLite file) takes from
 * launch until `GET /livez` answers 200, against a bare Koa app launched the same way (plain node,
 * a port given on the command line), in turns: server, baseline, server, baseline. Each launch
 * is probed as an orchestrator probes it: a request as soon as the last one was refused. The
 * server's launch until `/readyz` answers 200 (its threads have opened the database) is reported
 * beside it. Target: `/livez` within 1 s.
 *
 * Each launch also reads the CPU time (user + system) its process had used when `/livez` first
 * answered: of its main thread and of all its threads (`/proc/PID/task/PID/stat`, `/proc/PID/stat`),
 * which a loaded machine moves far less than the milliseconds. With `--before DIR` (a checkout of
 * another commit, built with `pnpm build`), that build's `serve` is launched in the same turns
 * (server, before, baseline), so that a change is measured against the code it changes.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPackages, builtEnv, repositoryRoot } from '../test/support/built.ts';
import { log, track } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';

export interface StartupOptions {
  quick: boolean;
  /** A checkout of another commit, built: its `serve` is launched in the same turns. */
  before?: string;
  /** A new SQLite file path. */
  newDatabase(label: string): Promise<string>;
}

const suite = 'start-up, SQLite';
const serverCommand = [join(repositoryRoot, 'packages/server/bin/trailproof.js'), 'serve'];
const baselineCommand = [fileURLToPath(new URL('./support/baseline-startup.mjs', import.meta.url))];

/** A port free on loopback now (the launched process binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}

/** The status of one GET of `path`, or null when the connection is refused (nothing listens yet). */
function status(port: number, path: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.once('error', () => resolve(null));
    req.end();
  });
}

/** User + system milliseconds of a process (`/proc/PID/stat`) or of one of its threads (`/proc/PID/task/TID/stat`). */
function cpuMs(statFile: string): number {
  const fields = readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** What one launch measured: milliseconds to each path, and the CPU used when the first one answered. */
interface Launch {
  times: number[];
  mainCpuMs: number;
  allCpuMs: number;
}

/** Asks `path` until it answers 200; resolves with the milliseconds since `launched`. */
async function untilOk(port: number, path: string, launched: number, exited: Promise<unknown>): Promise<number> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`the process exited before ${path} answered`);
    if ((await status(port, path)) === 200) return performance.now() - launched;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Launches `command` with `--port`, times `paths` in order, stops it; milliseconds per path. */
async function launch(command: string[], paths: string[], env: NodeJS.ProcessEnv): Promise<Launch> {
  const port = await freePort();
  const launched = performance.now();
  const child = track(spawn(process.execPath, [...command, '--port', String(port)], { env, stdio: ['ignore', 'ignore', 'inherit'] }));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const times: number[] = [];
    let cpu = { mainCpuMs: 0, allCpuMs: 0 };
    for (const path of paths) {
      times.push(await untilOk(port, path, launched, exited));
      if (times.length === 1) cpu = { mainCpuMs: cpuMs(`/proc/${child.pid}/task/${child.pid}/stat`), allCpuMs: cpuMs(`/proc/${child.pid}/stat`) };
    }
    return { times, ...cpu };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export async function startupTime({ quick, before, newDatabase }: StartupOptions): Promise<Figure[]> {
  await buildPackages();
  const file = await newDatabase('startup');
  const env = builtEnv({ TRAILPROOF_DB: file });
  const beforeCommand = before ? [join(before, 'packages/server/bin/trailproof.js'), 'serve'] : null;
  // The first launch creates the file (every migration) and brings each side's modules into the page cache.
  const created = (await launch(serverCommand, ['/livez', '/readyz'], env)).times;
  if (beforeCommand) await launch(beforeCommand, ['/livez', '/readyz'], env);
  await launch(baselineCommand, ['/livez'], env);
  const turns = quick ? 3 : 10;
  const server: Launch[] = [];
  const previous: Launch[] = [];
  const baseline: Launch[] = [];
  for (let turn = 0; turn < turns; turn++) {
    server.push(await launch(serverCommand, ['/livez', '/readyz'], env));
    if (beforeCommand) previous.push(await launch(beforeCommand, ['/livez', '/readyz'], env));
    baseline.push(await launch(baselineCommand, ['/livez'], env));
  }
  const ms = (values: number[]) => values.map((v) => Math.round(v)).join(', ');
  const describe = (name: string, launches: Launch[]) =>
    `${name}: /livez ${ms(launches.map((l) => l.times[0]!))} ms` +
    (launches[0]!.times.length > 1 ? `; /readyz ${ms(launches.map((l) => l.times[1]!))} ms` : '') +
    `; CPU at /livez, main thread ${ms(launches.map((l) => l.mainCpuMs))} ms, all threads ${ms(launches.map((l) => l.allCpuMs))} ms`;
  log(`start-up: ${describe('server', server)}`);
  if (previous.length) log(`start-up: ${describe(`before (${before})`, previous)}`);
  log(`start-up: ${describe('baseline', baseline)}`);
  const live = server.map((l) => l.times[0]!);
  const ready = server.map((l) => l.times[1]!);
  const liveMedian = median(live);
  const baselineMedian = median(baseline.map((l) => l.times[0]!));
  const cpuMedian = median(server.map((l) => l.mainCpuMs));
  const baselineCpuMedian = median(baseline.map((l) => l.mainCpuMs));
  const figures: Figure[] = [
    {
      suite,
      name: 'launch to /livez 200',
      value: round(liveMedian, 0),
      unit: 'ms',
      baseline: round(baselineMedian, 0),
      ratio: round(baselineMedian / liveMedian, 2),
      target: '< 1000 ms',
      pass: liveMedian < 1000,
      note: `median of ${turns} launches in turns with the baseline (a bare Koa app, plain node); slowest ${Math.round(Math.max(...live))} ms, baseline's ${Math.round(Math.max(...baseline.map((l) => l.times[0]!)))} ms; ratio: the baseline's time over the server's`,
    },
    {
      suite,
      name: "main thread's CPU at the first /livez 200",
      value: round(cpuMedian, 0),
      unit: 'ms',
      baseline: round(baselineCpuMedian, 0),
      ratio: round(baselineCpuMedian / cpuMedian, 2),
      target: '–',
      pass: null,
      note: `median of the same launches (user + system, /proc/PID/task/PID/stat); all threads ${round(median(server.map((l) => l.allCpuMs)), 0)} ms`,
    },
    {
      suite,
      name: 'launch to /readyz 200',
      value: round(median(ready), 0),
      unit: 'ms',
      baseline: null,
      ratio: null,
      target: '–',
      pass: null,
      note: `median of the same launches (the database open and the store's threads started); slowest ${Math.round(Math.max(...ready))} ms; the first launch, which created the file, ${Math.round(created[0]!)} / ${Math.round(created[1]!)} ms`,
    },
  ];
  if (previous.length) {
    const previousLive = median(previous.map((l) => l.times[0]!));
    figures.push({
      suite,
      name: 'launch to /livez 200, the --before build',
      value: round(previousLive, 0),
      unit: 'ms',
      baseline: round(liveMedian, 0),
      ratio: round(liveMedian / previousLive, 2),
      target: '–',
      pass: null,
      note: `median of the same turns; main thread's CPU at /livez ${round(median(previous.map((l) => l.mainCpuMs)), 0)} ms, /readyz ${round(median(previous.map((l) => l.times[1]!)), 0)} ms; baseline column: this build's; ratio: this build's time over the --before build's`,
    });
  }
  return figures;
}
