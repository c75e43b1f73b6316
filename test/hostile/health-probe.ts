/**
 * Is the server still answering while a hostile request is being served? Health probes are sent
 * one after another for as long as that request runs: each must answer within the bound (1 s by
 * the issue that asked for these tests), or the event loop was held for longer than that.
 */
import type { TestServer } from '@trailproof/server/testing';

export interface Probed<T> {
  result: T;
  /** How long the slowest probe took to answer, in ms. */
  slowestMs: number;
  probes: number;
}

/** Runs `work` while `GET /api/v2/health` is probed back to back; at least one probe starts once `work` has. */
export async function whileProbingHealth<T>(server: Pick<TestServer, 'url'>, work: () => Promise<T>): Promise<Probed<T>> {
  let settled = false;
  const running = work().finally(() => (settled = true));
  let slowestMs = 0;
  let probes = 0;
  // The hostile request is on its way before the first probe: give it a moment to reach the server.
  await new Promise((resolve) => setTimeout(resolve, 20));
  do {
    const started = performance.now();
    const answer = await fetch(`${server.url}/api/v2/health`);
    await answer.arrayBuffer();
    if (answer.status !== 200) throw new Error(`health answered ${answer.status}`);
    slowestMs = Math.max(slowestMs, performance.now() - started);
    probes++;
    await new Promise((resolve) => setTimeout(resolve, 10));
  } while (!settled);
  return { result: await running, slowestMs, probes };
}
