/**
 * A K8S snapshot report of 1,000 pods (600 images, 550 of them reported as artifacts in 50
 * trails) with its running artifacts matched to artifacts and trails, against the same built
 * server with the matching answering "no match" without a query (support/without-snapshot-matching.mjs,
 * nothing changed in the product), each on a database of its own, in turns: at most twice the
 * cost, so at least 0.5 of the throughput. Each report runs one new image in place of the last
 * (a stamped fingerprint), so that every report makes a snapshot with its deployment and events.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// From the sources: the package's build may be older than them when this module loads (startServer builds it).
import { openSqliteStore } from '../packages/server/src/store/index.ts';
import { BetterSqlite3 } from '@trailproof/server/testing';
import { fleetArtifact, fleetImage, sha256Of } from '../test/support/fleet.ts';
import { load } from './support/load.ts';
import { log, runCli, startServer, type Running } from './support/processes.ts';
import { round, type Figure } from './support/report.ts';
import { rotate, turnRatios } from './support/turns.ts';

const suite = 'snapshots, SQLite';
const trails = 50;
const images = 600;
const reported = 550;
const image = fleetImage;
const fingerprint = sha256Of;

/** The report's body, and where in it the last pod's fingerprint takes a 16-digit counter (48 zeros before it). */
export function reportBody(dir: string): { file: string; stampAt: number } {
  const pods = Array.from({ length: 1000 }, (_, i) => ({
    podName: `pod-${i}`,
    namespace: 'bench',
    digests: { [`registry.example/${image(i % images)}`]: i === 999 ? `${'0'.repeat(48)}${'0'.repeat(16)}` : fingerprint(image(i % images)) },
    creationTimestamp: 1_763_000_000 + i,
    owners: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${i % images}`, uid: `uid-${i}`, controller: true, blockOwnerDeletion: true }],
  }));
  const text = JSON.stringify({ artifacts: pods });
  const file = join(dir, 'report.json');
  writeFileSync(file, text);
  return { file, stampAt: text.indexOf('0'.repeat(64)) + 48 };
}

/** Environment, trails (even ones compliant) and artifacts on a side's server and database. */
export async function seed(server: Running, location: string, token: string): Promise<void> {
  const call = async (method: string, path: string, body: BodyInit, json = false) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) };
    const answer = await fetch(server.url + path, { method, headers, body });
    if (answer.status !== 200 && answer.status !== 201) throw new Error(`${method} ${path} answered ${answer.status}: ${await answer.text()}`);
  };
  const form = (data: unknown) => {
    const f = new FormData();
    f.append('data_json', JSON.stringify(data));
    return f;
  };
  await call('PUT', '/api/v2/environments/bench', JSON.stringify({ name: 'prod', type: 'K8S' }), true);
  for (let t = 0; t < trails; t++) {
    await call('PUT', '/api/v2/trails/bench/fleet', form({ name: `t${t}` }));
    await call('POST', `/api/v2/attestations/bench/fleet/trail/t${t}/generic`, form({ attestation_name: 'checks', is_compliant: t % 2 === 0 }));
  }
  const store = await openSqliteStore(location);
  try {
    const organizationId = Number((await store.findOrganization('bench'))!.id);
    for (let k = 0; k < reported; k++) {
      await store.appendArtifact(fleetArtifact(organizationId, k, trails));
    }
  } finally {
    await store.close();
  }
}

/** How many of a side's deployments link to a trail: the baseline's none, or it matched after all. */
function matchedDeployments(location: string): number {
  const db = new BetterSqlite3(location, { readonly: true });
  try {
    return (db.prepare('select count(*) as n from deployments where trail_id is not null').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

export async function snapshotReports(o: { quick: boolean }): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-bench-snapshots-'));
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const seconds = o.quick ? 4 : 40;
    const rounds = o.quick ? 2 : 8;
    const body = reportBody(dir);
    const hooks = fileURLToPath(new URL('./support/without-snapshot-matching.mjs', import.meta.url));
    const sides: Record<string, { server: Running; token: string; location: string }> = {};
    for (const [side, env] of [
      ['match', {}],
      ['nomatch', { NODE_OPTIONS: `--import=${hooks}` }],
    ] as const) {
      const location = join(dir, `${side}.db`);
      const token = (await runCli(['token', 'create', '--org', 'bench', '--database', location])).trim();
      // Both sides unbundled: the baseline's module hook replaces domain/running, which the bundle has no module of.
      const server = await startServer(location, env, 1, { unbundled: true });
      stops.push(() => server.stop());
      await seed(server, location, token);
      sides[side] = { server, token, location };
    }
    const run = (side: string) => (duration: number) =>
      load({
        url: `${sides[side]!.server.url}/api/v2/environments/bench/prod/report/K8S`,
        method: 'PUT',
        bodyFile: body.file,
        stampAt: body.stampAt,
        // Reports to one environment take turns (a lock): a few connections keep it busy.
        connections: 4,
        seconds: duration,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${sides[side]!.token}` },
      });
    for (const side of ['match', 'nomatch']) await run(side)(o.quick ? 1 : 5);
    const measured = await rotate(
      { match: { processes: [sides.match!.server], load: run('match') }, nomatch: { processes: [sides.nomatch!.server], load: run('nomatch') } },
      seconds,
      rounds,
    );
    const [matched, unmatched] = [matchedDeployments(sides.match!.location), matchedDeployments(sides.nomatch!.location)];
    if (unmatched !== 0 || matched === 0)
      throw new Error(`deployments linked to a trail: ${matched} with matching, ${unmatched} without: the hook no longer finds fingerprintEvidence`);
    const ours = measured.match;
    const base = measured.nomatch;
    log(
      `  with matching: ${ours.rps.toFixed(1)} reports/s, p99 ${ours.p99} ms, ${ours.cpu ?? '?'} us CPU; without: ${base.rps.toFixed(1)} reports/s, p99 ${base.p99} ms`,
    );
    const ratio = round(ours.rps / base.rps, 3);
    return [
      {
        suite,
        name: '1,000-pod K8S report with matching: throughput',
        value: round(ours.rps),
        unit: 'req/s',
        baseline: round(base.rps),
        ratio,
        target: '>= 0.5 of without matching (cost at most twice)',
        pass: ratio !== null && ratio >= 0.5,
        note: `the same server with fingerprintEvidence answering no match without a query (support/without-snapshot-matching.mjs), each on its own file; 600 images (550 reported as artifacts of 50 trails), each report one new image; 4 connections, ${seconds} s each in ${rounds} turns (${turnRatios(ours, base)}); p99 ${ours.p99} ms against ${base.p99} ms; CPU ${ours.cpu ?? '?'} us per report against ${base.cpu ?? '?'}; ${ours.non2xx + ours.errors + base.non2xx + base.errors} failed`,
      },
    ];
  } finally {
    await Promise.allSettled(stops.map((stop) => stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}
