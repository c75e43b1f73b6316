/**
 * Load from autocannon in a separate process on loopback (so the load generator does not share
 * the server's event loop), bounded in time. Several targets run at once and are summed.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { track } from './processes.ts';
import { round } from './report.ts';

const worker = fileURLToPath(new URL('./load-worker.ts', import.meta.url));

export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** File holding the request body. */
  bodyFile?: string;
  /** Byte offset in the body where each request gets a distinct 16-digit counter. */
  stampAt?: number;
  /** A file of paths (with their queries), one a line, that the requests take in turn instead of the URL's own. */
  pathsFile?: string;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  /** 2xx answers per second over the run. */
  rps: number;
  /** Latency percentiles of every answer, ms to the hundredth (load-worker.ts). */
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
}

function once(o: LoadOptions): Promise<LoadResult> {
  const args = ['--import', 'tsx', worker, JSON.stringify({ method: 'GET', headers: {}, ...o })];
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    let err = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (err += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), (o.seconds + 60) * 1000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      try {
        const r = JSON.parse(out) as {
          duration: number;
          exactLatency: { p50: number; p99: number };
          '2xx': number;
          non2xx: number;
          errors: number;
          timeouts: number;
        };
        // Throughput counts answered 2xx only, over the measured duration.
        const latency = r.exactLatency;
        resolve({
          rps: r['2xx'] / r.duration,
          p50: round(latency.p50, 2)!,
          p99: round(latency.p99, 2)!,
          ok: r['2xx'],
          non2xx: r.non2xx,
          errors: r.errors + r.timeouts,
        });
      } catch {
        reject(new Error(`autocannon exited ${code}: ${err.slice(0, 500)}`));
      }
    });
  });
}

/** Runs the loads at the same time; throughput and counts add up, latencies are the worst of them. */
export async function load(...targets: LoadOptions[]): Promise<LoadResult> {
  const results = await Promise.all(targets.map(once));
  return {
    rps: results.reduce((n, r) => n + r.rps, 0),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    ok: results.reduce((n, r) => n + r.ok, 0),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
  };
}
