// @database
/**
 * Big clusters (issue 46, item 3): a report of more than 2,730 artifacts answered 500 "too many
 * SQL variables" on SQLite, and the Kosli CLI resends a 5xx every minute. Every report type takes
 * the contract's 5,000 artifacts, stores them (snapshot, deployments, events), reads them back
 * complete, and knows a second identical report as unchanged; a report at the body's bound (about
 * 14,000 running fingerprints) is stored on PostgreSQL too, past its 65,535 bound parameters.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { limits, maxReportArtifacts, reportTypes, type ReportType } from '@trailproof/schema';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { whileProbingHealth } from './health-probe.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** What identifies instance `i` in a report of `type`, beside its digests. */
const identity: Record<ReportType, (i: number) => Record<string, string>> = {
  server: () => ({}),
  docker: () => ({}),
  S3: () => ({}),
  lambda: () => ({}),
  K8S: (i) => ({ podName: `web-${i}`, namespace: 'prod' }),
  ECS: (i) => ({ taskArn: `arn:aws:ecs:eu-west-1:1:task/c/${i}` }),
  'azure-apps': (i) => ({ app_name: `app-${i}` }),
  'cloud-run': (i) => ({ revisionName: `web-${i}` }),
};

/** `count` instances, each running an artifact of its own (`generation` tells reports apart). */
const artifactsOf = (type: ReportType, count: number, generation = 0) =>
  Array.from({ length: count }, (_, i) => ({
    ...identity[type](i),
    digests: { [`app-${i}`]: sha(`${type} ${generation} ${i}`) },
    creationTimestamp: 1_763_800_000,
  }));

/** Every page of a list, followed through its `page` parameter. */
async function everyPage<T>(server: TestServer, path: string, perPage: number, itemsOf: (body: any) => T[]): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; ; page++) {
    const res = await server.request('GET', `${path}${path.includes('?') ? '&' : '?'}per_page=${perPage}&page=${page}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const items = itemsOf(res.body);
    all.push(...items);
    if (items.length < perPage) return all;
  }
}

describe('hostile clients: reports of big clusters', function () {
  this.timeout(600_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  const report = (env: string, type: ReportType, artifacts: unknown[]) =>
    server.request('PUT', `/api/v2/environments/acme/${env}/report/${type}`, { json: { artifacts } });

  for (const type of reportTypes) {
    it(`${type}: stores a report of ${maxReportArtifacts} artifacts, reads it back complete and knows it again, while health answers`, async () => {
      const env = `big-${type.toLowerCase()}`;
      expect((await server.request('PUT', '/api/v2/environments/acme', { json: { name: env, type } })).status).to.equal(201);
      const artifacts = artifactsOf(type, maxReportArtifacts);
      const fingerprints = artifacts.map((a) => Object.values(a.digests)[0]!).sort();

      const { result: first, slowestMs } = await whileProbingHealth(server, () => report(env, type, artifacts));
      expect(first.status, JSON.stringify(first.body).slice(0, 500)).to.equal(201);
      expect(slowestMs, 'the slowest health probe during the report (ms)').to.be.below(1000);
      expect(first.body.snapshot_index).to.equal(1);
      expect([...first.body.deployed].sort()).to.deep.equal(fingerprints);

      const snapshot = await server.request('GET', `/api/v2/environments/acme/${env}/snapshots/1`);
      expect(snapshot.status).to.equal(200);
      expect(snapshot.body.artifacts.map((a: { fingerprint: string }) => a.fingerprint).sort()).to.deep.equal(fingerprints);
      const deployments = await everyPage(server, `/api/v2/deployments/acme?env_name=${env}`, 50, (b) => b.deployments);
      expect(deployments.map((d: any) => d.fingerprint).sort()).to.deep.equal(fingerprints);
      const events = await everyPage(server, `/api/v2/environments/acme/${env}/events`, 100, (b) => b);
      expect(events.map((e: any) => `${e.type} ${e.sha256}`).sort()).to.deep.equal(fingerprints.map((f) => `started ${f}`));

      const again = await report(env, type, artifacts);
      expect(again.status, JSON.stringify(again.body).slice(0, 500)).to.equal(200);
      expect(again.body).to.deep.include({ snapshot_index: 1, changed: false, deployed: [] });
    });
  }

  it('a report replacing all 5,000 artifacts stores 5,000 deployments and 10,000 events (started and exited)', async () => {
    const env = 'big-replaced';
    await server.request('PUT', '/api/v2/environments/acme', { json: { name: env, type: 'K8S' } });
    expect((await report(env, 'K8S', artifactsOf('K8S', maxReportArtifacts, 1))).status).to.equal(201);
    const replaced = await report(env, 'K8S', artifactsOf('K8S', maxReportArtifacts, 2));
    expect(replaced.status, JSON.stringify(replaced.body).slice(0, 500)).to.equal(201);
    expect(replaced.body.deployed).to.have.length(maxReportArtifacts);
    const events = await everyPage(server, `/api/v2/environments/acme/${env}/events?start=2&end=2`, 100, (b) => b);
    const counts: Record<string, number> = {};
    for (const e of events as Array<{ type: string }>) counts[e.type] = (counts[e.type] ?? 0) + 1;
    expect(counts).to.deep.equal({ started: maxReportArtifacts, exited: maxReportArtifacts });
  });

  it('stores a report at the body bound (every artifact with 100 digests, about 14,000 fingerprints) and knows it again', async () => {
    const env = 'big-digests';
    await server.request('PUT', '/api/v2/environments/acme', { json: { name: env, type: 'server' } });
    const artifacts: Array<{ digests: Record<string, string>; creationTimestamp: number }> = [];
    const artifact = (i: number) => ({
      digests: Object.fromEntries(Array.from({ length: limits.smallArray }, (_, d) => [`${d}`, sha(`many ${i} ${d}`)])),
      creationTimestamp: 1,
    });
    while (JSON.stringify({ artifacts: [...artifacts, artifact(artifacts.length)] }).length <= limits.dataJsonBytes) artifacts.push(artifact(artifacts.length));
    const fingerprints = artifacts.length * limits.smallArray;
    expect(fingerprints).to.be.above(13_000);
    const first = await report(env, 'server', artifacts);
    expect(first.status, JSON.stringify(first.body).slice(0, 500)).to.equal(201);
    expect(first.body.deployed).to.have.length(fingerprints);
    const snapshot = await server.request('GET', `/api/v2/environments/acme/${env}/snapshots/1`);
    expect(snapshot.body.artifacts).to.have.length(fingerprints);
    const listed = await server.request('GET', `/api/v2/deployments/acme?env_name=${env}&per_page=1`);
    expect(listed.body.total_count ?? listed.headers.get('x-total-count')).to.satisfy((n: unknown) => Number(n) === fingerprints);
    const again = await report(env, 'server', artifacts);
    expect(again.status).to.equal(200);
    expect(again.body.changed).to.equal(false);
  });
});
