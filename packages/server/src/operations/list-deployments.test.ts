// @database
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { listDeployments } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';

const day = 24 * 60 * 60;
const fp = (text: string) => createHash('sha256').update(text).digest('hex');
const base = '/api/v2/deployments/acme';
type Deployment = {
  fingerprint: string;
  deployed_at: number;
  artifact_name: string;
  env_name: string;
  snapshot_index: number;
  _links: Record<string, { href: string }>;
};

describe('list deployments: GET /deployments/{org}', () => {
  let server: TestServer;
  let org: number;
  let env: { production: number; staging: number };
  let trailId: number;
  let seeded: number;

  beforeEach(async () => {
    server = await startTestServer();
    org = Number((await server.store.findOrganization('acme'))!.id);
    const now = Date.now() / 1000;
    env = {
      production: (await server.store.upsertEnvironment(org, { name: 'production', type: 'K8S' }, now - 40 * day)).id,
      staging: (await server.store.upsertEnvironment(org, { name: 'staging', type: 'docker' }, now - 40 * day)).id,
    };
    const begun = await server.request('PUT', '/api/v2/trails/acme/payments', {
      form: { data_json: JSON.stringify({ name: 'build-7', repo_info: { name: 'acme/payments', url: 'https://git.example.com/acme/payments' } }) },
    });
    expect(begun.status).to.equal(201);
    trailId = (await server.store.findTrail(org, 'payments', 'build-7'))!.id;
    seeded = now;
  });
  afterEach(() => server.close());

  let nextIndex = 0;
  const deploy = (name: string, at: number, o: { env?: 'production' | 'staging'; trail?: boolean; index?: number } = {}) => {
    const envName = o.env ?? 'production';
    return server.store.insertDeployments([
      {
        organizationId: org,
        environmentId: env[envName],
        envName,
        snapshotIndex: o.index ?? ++nextIndex,
        fingerprint: fp(name),
        artifactName: name,
        deployedAt: at,
        trailId: o.trail ? trailId : null,
        repoName: o.trail ? 'acme/payments' : null,
      },
    ]);
  };
  const list = async (query = '') => {
    const res = await server.request('GET', base + query);
    expect(res.status, `${query}: ${JSON.stringify(res.body)}`).to.equal(200);
    assertMatchesContract(listDeployments, 200, res.body);
    return res.body as {
      page: number;
      per_page: number;
      total_pages: number;
      total_count: number;
      deployments: Deployment[];
      _links: Record<string, { href: string } | null>;
    };
  };
  const artifacts = async (query = '') => (await list(query)).deployments.map((d) => d.artifact_name);

  it('answers the envelope and each deployment as stored (contract)', async () => {
    await deploy('api', seeded - 3600, { trail: true, index: 4 });
    const body = await list();
    expect(body).to.deep.include({ page: 1, per_page: 15, total_pages: 1, total_count: 1 });
    const { _links, ...deployment } = body.deployments[0]!;
    // The trail was begun without a commit, and reported no artifact: no commit is known.
    expect(deployment).to.deep.equal({
      fingerprint: fp('api'),
      deployed_at: seeded - 3600,
      artifact_name: 'api',
      env_name: 'production',
      snapshot_index: 4,
      flow_name: 'payments',
      trail_name: 'build-7',
      git_commit: null,
    });
    expect(_links).to.deep.equal({
      environment: { href: '/api/v2/environments/acme/production' },
      snapshot: { href: '/api/v2/environments/acme/production/snapshots/4' },
      trail: { href: '/api/v2/trails/acme/payments/build-7' },
    });
  });

  it('links lead to the environment, the snapshot and the trail; no trail link without a trail', async () => {
    await server.store.insertSnapshot(
      env.staging,
      1,
      [{ name: 'web', fingerprint: fp('web'), instance_count: 1, creation_timestamp: seeded - 60, instances: [{ container: 'web' }] }],
      seeded - 60,
      null,
    );
    await deploy('web', seeded - 60, { env: 'staging', index: 1 });
    const [deployment] = (await list()).deployments;
    expect(deployment!._links).to.have.keys(['environment', 'snapshot']);
    const environment = await server.request('GET', deployment!._links.environment!.href);
    expect(environment.status).to.equal(200);
    expect(environment.body.name).to.equal('staging');
    const snapshot = await server.request('GET', deployment!._links.snapshot!.href);
    expect(snapshot.status, JSON.stringify(snapshot.body)).to.equal(200);
    expect(snapshot.body.artifacts[0].fingerprint).to.equal(fp('web'));

    await deploy('api', seeded - 30, { trail: true });
    const [withTrail] = (await list()).deployments;
    const trail = await server.request('GET', withTrail!._links.trail!.href);
    expect(trail.status).to.equal(200);
    expect(trail.body.name).to.equal('build-7');
  });

  it('defaults to the 28 days up to now', async () => {
    await deploy('29-days-ago', seeded - 29 * day);
    await deploy('27-days-ago', seeded - 27 * day);
    await deploy('an-hour-ago', seeded - 3600);
    await deploy('in-an-hour', seeded + 3600);
    expect(await artifacts()).to.deep.equal(['an-hour-ago', '27-days-ago']);
    // end_ts alone moves the window with it; start_ts alone keeps the end at now
    expect(await artifacts(`?end_ts=${seeded - 2 * day}`)).to.deep.equal(['27-days-ago', '29-days-ago']);
    expect(await artifacts(`?start_ts=${seeded - 30 * day}`)).to.deep.equal(['an-hour-ago', '27-days-ago', '29-days-ago']);
  });

  it('start_ts and end_ts are inclusive bounds; start_ts after end_ts is a 400', async () => {
    const t = 1_763_000_000;
    for (const [name, at] of [
      ['before', t - 0.5],
      ['at-start', t],
      ['inside', t + 50.25],
      ['at-end', t + 100],
      ['after', t + 100.5],
    ] as const)
      await deploy(name, at);
    expect(await artifacts(`?start_ts=${t}&end_ts=${t + 100}`)).to.deep.equal(['at-end', 'inside', 'at-start']);
    expect(await artifacts(`?start_ts=${t + 50.25}&end_ts=${t + 50.25}`)).to.deep.equal(['inside']);
    expect(await artifacts(`?start_ts=${t - 1}&end_ts=${t + 101}`)).to.deep.equal(['after', 'at-end', 'inside', 'at-start', 'before']);
    const bad = await server.request('GET', `${base}?start_ts=${t + 1}&end_ts=${t}`);
    expect(bad.status).to.equal(400);
    assertMatchesContract(listDeployments, 400, bad.body);
    expect(bad.body.errors).to.have.keys(['query.start_ts']);
    for (const query of ['?start_ts=yesterday', '?end_ts=-5', '?start_ts=1e12']) {
      const res = await server.request('GET', base + query);
      expect(res.status, query).to.equal(400);
      expect(Object.keys(res.body.errors), query).to.have.length(1);
      expect(Object.keys(res.body.errors)[0], query).to.match(/^query\.(start_ts|end_ts)$/);
    }
  });

  it('filters by env_name and by repo_name (the repository of the trail that attested it)', async () => {
    await deploy('p1', seeded - 300, { trail: true });
    await deploy('s1', seeded - 200, { env: 'staging' });
    await deploy('s2', seeded - 100, { env: 'staging', trail: true });
    expect(await artifacts('?env_name=staging')).to.deep.equal(['s2', 's1']);
    expect(await artifacts('?env_name=production')).to.deep.equal(['p1']);
    expect(await artifacts('?env_name=Production')).to.deep.equal([]);
    expect(await artifacts('?repo_name=acme/payments')).to.deep.equal(['s2', 'p1']);
    expect(await artifacts('?repo_name=acme%2Fpayments&env_name=staging')).to.deep.equal(['s2']);
    expect(await artifacts('?repo_name=acme/other')).to.deep.equal([]);
    // An empty filter is no filter: the page and total_count agree with the unfiltered list
    for (const query of ['?env_name=', '?repo_name=', '?env_name=&repo_name=']) {
      const page = await list(query);
      expect(
        page.deployments.map((d) => d.artifact_name),
        query,
      ).to.deep.equal(['s2', 's1', 'p1']);
      expect(page.total_count, query).to.equal(3);
    }
  });

  it('total_count over many days counts every deployment once, fractions of a second at day edges included', async () => {
    const dayStart = Math.floor(seeded / day) * day - 10 * day;
    // The window starts inside a day: its first (partial) day is counted from the rows
    const times = [dayStart + 0.25, dayStart + day - 1e-3, dayStart + day - 4e-7, dayStart + day, dayStart + 3 * day + 0.5, seeded - 1];
    for (const [i, at] of times.entries()) await deploy(`edge-${i}`, at);
    await deploy('before-window', dayStart + 0.2);
    const page = await list(`?start_ts=${dayStart + 0.25}&end_ts=${seeded}&per_page=50`);
    expect(page.deployments).to.have.length(times.length);
    expect(page.total_count).to.equal(times.length);
  });

  it('lists newest first, ties in insertion order newest first', async () => {
    await deploy('middle', seeded - 200);
    await deploy('oldest', seeded - 300);
    await deploy('tie-first', seeded - 100);
    await deploy('tie-second', seeded - 100);
    await deploy('newest', seeded - 10);
    expect(await artifacts()).to.deep.equal(['newest', 'tie-second', 'tie-first', 'middle', 'oldest']);
  });

  it('paginates: 15 by default, per_page 0 answers counts only, 50 is the most', async () => {
    for (let i = 0; i < 16; i++) await deploy(`a${String(i).padStart(2, '0')}`, seeded - 1000 + i);
    const first = await list();
    expect(first).to.deep.include({ page: 1, per_page: 15, total_pages: 2, total_count: 16 });
    expect(first.deployments.map((d) => d.artifact_name)).to.deep.equal(Array.from({ length: 15 }, (_, i) => `a${String(15 - i).padStart(2, '0')}`));
    const second = await list('?page=2');
    expect(second.deployments.map((d) => d.artifact_name)).to.deep.equal(['a00']);
    expect(second._links.next).to.equal(null);
    expect(second._links.prev!.href).to.equal(`${base}?page=1`);
    const past = await list('?page=9');
    expect(past).to.deep.include({ page: 9, total_pages: 2, total_count: 16, deployments: [] });

    const counts = await list('?per_page=0');
    expect(counts).to.deep.include({ per_page: 0, total_pages: 0, total_count: 16, deployments: [] });
    const fifty = await list('?per_page=50');
    expect(fifty).to.deep.include({ per_page: 50, total_pages: 1 });
    expect(fifty.deployments).to.have.length(16);
    const byThree = await list('?per_page=3&page=6&env_name=production');
    expect(byThree).to.deep.include({ total_pages: 6, total_count: 16 });
    expect(byThree.deployments.map((d) => d.artifact_name)).to.deep.equal(['a00']);

    for (const [query, field] of [
      ['?per_page=51', 'query.per_page'],
      ['?per_page=-1', 'query.per_page'],
      ['?per_page=x', 'query.per_page'],
      ['?page=0', 'query.page'],
    ]) {
      const res = await server.request('GET', base + query!);
      expect(res.status, query).to.equal(400);
      expect(res.body.errors, query).to.have.keys([field]);
    }
  });

  it('_links follow the query with only page changed', async () => {
    for (let i = 0; i < 5; i++) await deploy(`b${i}`, seeded - 100 + i, { env: i % 2 ? 'staging' : 'production' });
    const query = `?env_name=production&per_page=1&start_ts=${Math.floor(seeded - day)}`;
    const first = await list(query);
    expect(first).to.deep.include({ total_count: 3, total_pages: 3 });
    expect(first._links.self!.href).to.equal(base + query);
    expect(first._links.prev).to.equal(null);
    const seen = [first.deployments[0]!.artifact_name];
    let next = first._links.next;
    while (next) {
      const url = new URL(next.href, 'http://x');
      expect(url.searchParams.get('env_name')).to.equal('production');
      expect(url.searchParams.get('start_ts')).to.equal(String(Math.floor(seeded - day)));
      const page = await list(next.href.slice(base.length));
      seen.push(page.deployments[0]!.artifact_name);
      next = page._links.next;
    }
    expect(seen).to.deep.equal(['b4', 'b2', 'b0']);
    expect(first._links.last!.href).to.equal(`${base}${query}&page=3`);
  });

  it('keeps organisations apart', async () => {
    await deploy('api', seeded - 60);
    const globex = await server.request('GET', '/api/v2/deployments/globex', { token: server.otherToken });
    expect(globex.status).to.equal(200);
    expect(globex.body).to.deep.include({ total_count: 0, deployments: [] });
    const acme = await server.request('GET', base, { token: server.otherToken });
    expect(acme.status).to.equal(403);
    expect(JSON.stringify(acme.body)).not.to.contain(fp('api'));
  });
});
