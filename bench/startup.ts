/**
 * Start-up: how long `trailproof serve` (the built command, on an existing SQLite file) takes from
 * launch until `GET /livez` answers 200, against a bare Koa app launched the same way (plain node,
 * a port given on the command line), in turns: server, baseline, server, baseline. Each launch
 * is probed as an orchestrator probes it: a request as soon as the last one was refused. The
 * server's launch until `/readyz` answers 200 (its threads have opened the database) is reported
 * beside it. Target: `/livez` within 1 s.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPackages, builtEnv, repositoryRoot } from '../test/support/built.ts';
import { log, track } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';

export interface StartupOptions {
  quick: boolean;
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
async function launch(command: string[], paths: string[], env: NodeJS.ProcessEnv): Promise<number[]> {
  const port = await freePort();
  const launched = performance.now();
  const child = track(spawn(process.execPath, [...command, '--port', String(port)], { env, stdio: ['ignore', 'ignore', 'inherit'] }));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const times: number[] = [];
    for (const path of paths) times.push(await untilOk(port, path, launched, exited));
    return times;
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

export async function startupTime({ quick, newDatabase }: StartupOptions): Promise<Figure[]> {
  await buildPackages();
  const file = await newDatabase('startup');
  const env = builtEnv({ TRAILPROOF_DB: file });
  // The first launch creates the file (every migration) and brings both sides' modules into the page cache.
  const created = await launch(serverCommand, ['/livez', '/readyz'], env);
  await launch(baselineCommand, ['/livez'], env);
  const turns = quick ? 3 : 10;
  const server: number[][] = [];
  const baseline: number[] = [];
  for (let turn = 0; turn < turns; turn++) {
    server.push(await launch(serverCommand, ['/livez', '/readyz'], env));
    baseline.push((await launch(baselineCommand, ['/livez'], env))[0]!);
  }
  const live = server.map(([livez]) => livez!);
  const ready = server.map(([, readyz]) => readyz!);
  const ms = (values: number[]) => values.map((v) => Math.round(v)).join(', ');
  log(`start-up: /livez ${ms(live)} ms; /readyz ${ms(ready)} ms; baseline ${ms(baseline)} ms`);
  const liveMedian = median(live);
  const baselineMedian = median(baseline);
  return [
    {
      suite,
      name: 'launch to /livez 200',
      value: round(liveMedian, 0),
      unit: 'ms',
      baseline: round(baselineMedian, 0),
      ratio: round(baselineMedian / liveMedian, 2),
      target: '< 1000 ms',
      pass: liveMedian < 1000,
      note: `median of ${turns} launches in turns with the baseline (a bare Koa app, plain node); slowest ${Math.round(Math.max(...live))} ms, baseline's ${Math.round(Math.max(...baseline))} ms; ratio: the baseline's time over the server's`,
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
}
