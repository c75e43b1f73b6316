/**
 * Artifact reads: one organisation with 1,000,000 artifacts in 100,000 trails (100,000 in 10,000
 * with --quick), seeded by SQL (support/seed-artifacts.ts). `get artifact flow@fingerprint` and
 * `search` by commit at 16 connections against the server and against a bare Koa handler running
 * the same statements (support/baseline-artifacts.ts), in turns.
 */
import { load } from './support/load.ts';
import { log, runCli, startBaseline, startServer, type Running } from './support/processes.ts';
import type { Figure } from './support/report.ts';
import { commitOf, fingerprintOf, flowOf, seedArtifacts } from './support/seed-artifacts.ts';
import { readFigures, rotate } from './support/turns.ts';

const connections = 16;

export async function artifactReads(o: { quick: boolean; suite: string; newDatabase(label: string): Promise<string> }): Promise<Figure[]> {
  const seconds = o.quick ? 2 : 6;
  const [trails, perTrail] = o.quick ? [10_000, 10] : [100_000, 10];
  const location = await o.newDatabase('artifacts');
  await runCli(['token', 'create', '--org', 'bench', '--database', location]); // migrates, creates the organisation
  const started = Date.now();
  seedArtifacts(location, trails, perTrail);
  log(
    `  seeded ${(trails * perTrail).toLocaleString('en')} artifacts in ${trails.toLocaleString('en')} trails in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const token = (await runCli(['token', 'create', '--org', 'bench', '--read-only', '--database', location])).trim();
  const running: Running[] = [];
  try {
    const server = await startServer(location);
    running.push(server);
    const baseline = await startBaseline('baseline-artifacts.ts', [location]);
    running.push(baseline);
    // An artifact that runs in an environment (one of the first 1,000), in the middle of its flow's trails.
    const queries = [
      { name: 'get artifact by fingerprint', path: `/api/v2/artifacts/bench/${flowOf(12)}/fingerprint/${fingerprintOf(125)}` },
      { name: 'search by commit', path: `/api/v2/search/bench/sha/${commitOf(12)}` },
    ];
    const at = (r: Running, path: string, s: number) => load({ url: r.url + path, headers: { authorization: `Bearer ${token}` }, connections, seconds: s });
    const figures: Figure[] = [];
    for (const q of queries) {
      for (const r of [server, baseline]) {
        const answer = await fetch(r.url + q.path, { headers: { authorization: `Bearer ${token}` } });
        if (answer.status !== 200) throw new Error(`${q.name}: ${answer.status} ${await answer.text()}`);
      }
      await at(server, q.path, 2); // warm-up (JIT, page cache)
      await at(baseline, q.path, 2);
      const { ours, base } = await rotate(
        { ours: { processes: [server], load: (s) => at(server, q.path, s) }, base: { processes: [baseline], load: (s) => at(baseline, q.path, s) } },
        seconds,
        2,
      );
      log(
        `  ${q.name}: ${ours.rps.toFixed(0)} req/s (baseline ${base.rps.toFixed(0)}), p50 ${ours.p50} ms, p99 ${ours.p99} ms (baseline ${base.p50} / ${base.p99} ms)`,
      );
      figures.push(...readFigures(o.suite, q.name, ours, base, `CPU ${ours.cpu ?? '?'} us per request (baseline ${base.cpu ?? '?'} us)`));
    }
    return figures;
  } finally {
    await Promise.allSettled(running.map((r) => r.stop()));
  }
}
