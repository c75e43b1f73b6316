/**
 * Is the server still answering while a hostile request is being served? Probes are sent one
 * after another for as long as that request runs. The bound (1 s, from the issue that asked for
 * these tests) is on `GET /livez`, which the process answers without the database: it measures
 * whether the event loop was held, where a database starved by a loaded machine (PostgreSQL's
 * processes beside the suite's) would add its own time. `GET /api/v2/health` is asked too and
 * must say 200: the database stayed readable meanwhile.
 */
import { request } from 'node:http';
import type { TestServer } from '@trailproof/server/testing';

export interface Probed<T> {
  result: T;
  /** How long the slowest `/livez` took to answer, in ms. */
  slowestMs: number;
  probes: number;
}

/** Runs `work` while `GET /livez` and `GET /api/v2/health` are probed back to back; at least one probe starts once `work` has. */
export async function whileProbingHealth<T>(server: Pick<TestServer, 'url'>, work: () => Promise<T>): Promise<Probed<T>> {
  let settled = false;
  const running = work().finally(() => (settled = true));
  let slowestMs = 0;
  let probes = 0;
  // The hostile request is on its way before the first probe: give it a moment to reach the server.
  await new Promise((resolve) => setTimeout(resolve, 20));
  do {
    const started = performance.now();
    await answered(`${server.url}/livez`);
    slowestMs = Math.max(slowestMs, performance.now() - started);
    await answered(`${server.url}/api/v2/health`);
    probes++;
    await new Promise((resolve) => setTimeout(resolve, 10));
  } while (!settled);
  return { result: await running, slowestMs, probes };
}

async function answered(url: string): Promise<void> {
  const answer = await fetch(url);
  const text = await answer.text();
  if (answer.status !== 200) throw new Error(`${new URL(url).pathname} answered ${answer.status}: ${text.slice(0, 300)}`);
}

/** `GET /readyz` on a connection of its own: a pool's primary hands each new connection to its next worker. */
function readiness(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/readyz`, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode!, text }));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end();
  });
}

/**
 * Waits until each of `workers` workers is ready: a server listens before its SQLite writer
 * thread is up and meanwhile answers 503 "is starting" (seconds on a loaded machine), which is
 * no failure of what a probe then asserts. Ready once `2 × workers` new connections in a row
 * answered 200 (the primary deals connections round-robin); any other answer throws.
 */
export async function untilReady(server: Pick<TestServer, 'url'>, workers = 1, timeoutMs = 120_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  for (let inARow = 0; inARow < 2 * workers; ) {
    const { status, text } = await readiness(server.url);
    if (status === 200) inARow++;
    else if (status === 503 && (JSON.parse(text) as { errors?: { database?: string } }).errors?.database === 'is starting') inARow = 0;
    else throw new Error(`readiness answered ${status}: ${text.slice(0, 300)}`);
    if (performance.now() > until) throw new Error(`not ready within ${timeoutMs} ms: ${text.slice(0, 300)}`);
    if (inARow === 0) await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
