// @database
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { listEnvironmentEvents } from '@trailproof/schema';
import type { Store } from '@trailproof/server';
import { assertMatchesContract, migrationsUndone, reopenTestStore, startTestServer, type TestServer } from '@trailproof/server/testing';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
/** A pod running `image` (`name:version`) as the artifact `name`. */
const pod = (podName: string, image: string) => ({
  podName,
  namespace: 'prod',
  digests: { [image.split(':')[0]!]: sha(image) },
  creationTimestamp: 1_763_800_000,
});

/** What a page says, in short: `snapshot type name:image before->after`. */
const short = (
  events: Array<{ snapshot_index: number; type: string; artifact_name: string; sha256: string; instances_before: number; instances_after: number }>,
) => {
  const images = new Map(['api:1', 'api:2', 'web:1', 'db:1'].map((image) => [sha(image), image]));
  return events.map((e) => `${e.snapshot_index} ${e.type} ${e.artifact_name}:${images.get(e.sha256)} ${e.instances_before}->${e.instances_after}`);
};

/**
 * The history every test reads: three K8S reports that change what runs, and one that does not.
 *   1: api:1 x2, web:1 x1      2: api:1 x3, web:1 x1      3: api:2 x1, db:1 x1      (4th report = 3rd)
 * api:1 is attested by a compliant trail of acme/app, web:1 by a failing trail of acme/web; api:2
 * and db:1 by nothing.
 */
async function makeHistory(request: TestServer['request']): Promise<void> {
  const ok = (res: { status: number; body: unknown }) => expect([200, 201], JSON.stringify(res.body)).to.include(res.status);
  ok(await request('PUT', '/api/v2/environments/acme', { json: { name: 'prod', type: 'K8S', include_scaling: true } }));
  for (const [trail, repo, image, failures] of [
    ['b1', 'acme/app', 'api:1', 0],
    ['w1', 'acme/web', 'web:1', 2],
  ] as const) {
    ok(
      await request('PUT', `/api/v2/trails/acme/${repo.split('/')[1]}`, {
        form: { data_json: JSON.stringify({ name: trail, repo_info: { name: repo, url: `https://git.example.com/${repo}` } }) },
      }),
    );
    const data = {
      attestation_name: 'unit',
      junit_results: [{ name: 's', failures, errors: 0, skipped: 0, total: 3, duration: 1, timestamp: null }],
      artifact_fingerprint: sha(image),
    };
    ok(await request('POST', `/api/v2/attestations/acme/${repo.split('/')[1]}/trail/${trail}/junit`, { form: { data_json: JSON.stringify(data) } }));
  }
  const reports = [
    [pod('a1', 'api:1'), pod('a2', 'api:1'), pod('w1', 'web:1')],
    [pod('a1', 'api:1'), pod('a2', 'api:1'), pod('a3', 'api:1'), pod('w1', 'web:1')],
    [pod('a4', 'api:2'), pod('d1', 'db:1')],
    [pod('a5', 'api:2'), pod('d2', 'db:1')],
  ];
  for (const [i, artifacts] of reports.entries()) {
    const res = await request('PUT', '/api/v2/environments/acme/prod/report/K8S', { json: { artifacts } });
    expect(res.status, JSON.stringify(res.body)).to.equal(i < 3 ? 201 : 200);
  }
}

/** Oldest first: the first snapshot's events, then the second's, then the third's; within one, by artifact name, then fingerprint. */
const allOldestFirst = [
  '1 started api:api:1 0->2',
  '1 started web:web:1 0->1',
  '2 scaled api:api:1 2->3',
  ...(sha('api:1') < sha('api:2') ? ['3 exited api:api:1 3->0', '3 started api:api:2 0->1'] : ['3 started api:api:2 0->1', '3 exited api:api:1 3->0']),
  '3 started db:db:1 0->1',
  '3 exited web:web:1 1->0',
];
/** The default order is exactly the reverse. */
const allNewestFirst = [...allOldestFirst].reverse();

describe('environment events: GET /environments/{org}/{env_name}/events', () => {
  let server: TestServer;
  const events = (query = '', token?: string) => server.request('GET', `/api/v2/environments/acme/prod/events${query}`, token ? { token } : {});
  before(async () => {
    server = await startTestServer();
    await makeHistory(server.request);
  });
  after(() => server.close());

  it('answers what started, scaled and exited, newest first, with pagination headers', async () => {
    const res = await events();
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    assertMatchesContract(listEnvironmentEvents, 200, res.body);
    expect(short(res.body)).to.deep.equal(allNewestFirst);
    expect(res.headers.get('x-total-count')).to.equal('7');
    expect(res.headers.get('x-per-page')).to.equal('15');
    expect(res.headers.get('x-current-page')).to.equal('1');
    expect(res.headers.get('x-total-pages')).to.equal('1');
    expect(res.headers.get('link')).to.equal(null);
  });

  it('describes each event, links it to its snapshot and to the trail that attested the artifact, with compliance when reported', async () => {
    const res = await events('?reverse=true');
    expect(short(res.body)).to.deep.equal(allOldestFirst);
    const [apiStarted, webStarted, apiScaled] = res.body;
    const snapshot = async (n: number) => (await server.request('GET', `/api/v2/environments/acme/prod/snapshots/${n}`)).body;
    expect(apiStarted).to.deep.equal({
      type: 'started',
      environment_name: 'prod',
      snapshot_index: 1,
      artifact_name: 'api',
      sha256: sha('api:1'),
      description: '2 instances started running (from 0 to 2).',
      reported_at: (await snapshot(1)).created_at,
      instances_before: 0,
      instances_after: 2,
      flows: [{ flow_name: 'app', deployments: null }],
      trail_name: 'b1',
      git_commit: null,
      artifact_compliance: true,
      snapshot_compliance: false,
      pipeline: 'app',
      deployments: null,
      code_diff: null,
      _links: {
        environment: { href: '/api/v2/environments/acme/prod' },
        snapshot: { href: '/api/v2/environments/acme/prod/snapshots/1' },
        trail: { href: '/api/v2/trails/acme/app/b1' },
      },
    });
    expect(webStarted).to.deep.include({
      description: '1 instance started running (from 0 to 1).',
      artifact_compliance: false,
      flows: [{ flow_name: 'web', deployments: null }],
    });
    expect(apiScaled).to.deep.include({ type: 'scaled', description: 'Scaled up from 2 to 3 instances.', reported_at: (await snapshot(2)).created_at });
    const third = res.body.filter((e: { snapshot_index: number }) => e.snapshot_index === 3);
    const byImage = Object.fromEntries(third.map((e: { sha256: string }) => [e.sha256, e]));
    expect(byImage[sha('web:1')]).to.deep.include({
      type: 'exited',
      description: '1 instance stopped running (from 1 to 0).',
      flows: [{ flow_name: 'web', deployments: null }],
    });
    expect(byImage[sha('api:1')]).to.deep.include({ description: '3 instances stopped running (from 3 to 0).', artifact_compliance: true });
    // Nothing attested what runs after the third report: no flow, no trail link, not compliant, and neither is the environment.
    expect(byImage[sha('db:1')]).to.deep.include({ flows: [], artifact_compliance: false, snapshot_compliance: false });
    expect(byImage[sha('db:1')]._links).to.not.have.property('trail');
  });

  it('pages through them, Link header and all, and reverse=True gives the oldest first', async () => {
    const oldest = await events('?reverse=True');
    expect(short(oldest.body)).to.deep.equal(allOldestFirst);
    const page = await events('?per_page=3&page=2');
    const newest = await events();
    expect(page.body).to.deep.equal(newest.body.slice(3, 6));
    expect(page.headers.get('x-total-pages')).to.equal('3');
    expect(page.headers.get('x-current-page')).to.equal('2');
    expect(page.headers.get('link')).to.equal(
      [
        '</api/v2/environments/acme/prod/events?per_page=3&page=1>; rel="first"',
        '</api/v2/environments/acme/prod/events?per_page=3&page=1>; rel="prev"',
        '</api/v2/environments/acme/prod/events?per_page=3&page=3>; rel="next"',
        '</api/v2/environments/acme/prod/events?per_page=3&page=3>; rel="last"',
      ].join(', '),
    );
    const past = await events('?page=9');
    expect(past.body).to.deep.equal([]);
    expect(past.headers.get('x-total-count')).to.equal('7');
  });

  it('selects snapshots from start to end: indexes, counted back from the latest, interval, times and times ago', async () => {
    const snapshots = (list: Array<{ snapshot_index: number }>) => [...new Set(list.map((e) => e.snapshot_index))];
    expect(snapshots((await events('?start=2&end=2')).body)).to.deep.equal([2]);
    expect(snapshots((await events('?start=-1')).body)).to.deep.equal([3]);
    expect(snapshots((await events('?end=-2')).body)).to.deep.equal([2, 1]);
    expect(snapshots((await events('?start=-2&end=-1')).body)).to.deep.equal([3, 2]);
    expect(snapshots((await events('?start=-10')).body)).to.deep.equal([3, 2, 1]);
    // Far beyond the first snapshot, and beyond what a 32-bit index column holds.
    expect(snapshots((await events('?start=-99999999999999')).body)).to.deep.equal([3, 2, 1]);
    expect(snapshots((await events('?end=-99999999999999')).body)).to.deep.equal([]);
    expect(snapshots((await events('?start=999999999&end=-99999999999999')).body)).to.deep.equal([]);
    expect(snapshots((await events('?interval=2..NOW')).body)).to.deep.equal([3, 2]);
    expect(snapshots((await events('?interval=1..-3&start=3')).body)).to.deep.equal([1]);
    expect(snapshots((await events('?start=3&end=2')).body)).to.deep.equal([]);
    const all = (await events()).body as Array<{ snapshot_index: number; reported_at: number }>;
    const second = all.find((e) => e.snapshot_index === 2)!.reported_at;
    expect((await events(`?start=${second}`)).body).to.deep.equal(all.filter((e) => e.reported_at >= second));
    expect((await events(`?end=${second}`)).body).to.deep.equal(all.filter((e) => e.reported_at <= second));
    expect((await events('?start=1h')).body).to.deep.equal(all);
    expect((await events('?start=30mins&end=NOW')).body).to.deep.equal(all);
    expect((await events('?end=2days')).body).to.deep.equal([]);
    expect((await events('?start=1w&end=1%20hour')).body).to.deep.equal([]);
  });

  it('filters by the repositories of the attesting trails, one or several', async () => {
    expect(short((await events('?repo_name=acme/app')).body)).to.have.members([
      '3 exited api:api:1 3->0',
      '2 scaled api:api:1 2->3',
      '1 started api:api:1 0->2',
    ]);
    expect(short((await events('?repo_name=acme/app&repo_name=acme/web')).body)).to.have.length(5);
    expect((await events('?repo_name=acme/none')).headers.get('x-total-count')).to.equal('0');
    // An empty value is no filter, as in the deployment list.
    expect((await events('?repo_name=')).headers.get('x-total-count')).to.equal('7');
    expect(short((await events('?repo_name=&repo_name=acme/web')).body)).to.have.members(['3 exited web:web:1 1->0', '1 started web:web:1 0->1']);
  });

  it('refuses a bad query with 400 naming the field', async () => {
    const cases: Array<[string, string]> = [
      ['?start=0', 'query.start'],
      ['?start=soon', 'query.start'],
      ['?end=5years', 'query.end'],
      ['?end=1.5', 'query.end'],
      ['?start=1constructor', 'query.start'],
      ['?end=2__proto__', 'query.end'],
      ['?start=~5', 'query.start'],
      ['?interval=~x', 'query.interval'],
      ['?interval=1..2..3', 'query.interval'],
      ['?interval=1..x', 'query.interval'],
      ['?reverse=yes', 'query.reverse'],
      ['?per_page=101', 'query.per_page'],
      ['?page=0', 'query.page'],
    ];
    for (const [query, field] of cases) {
      const res = await events(query);
      expect(res.status, query).to.equal(400);
      expect(Object.keys(res.body.errors), query).to.deep.equal([field]);
    }
  });

  it('is read with a read-only token; another organisation gets 403, an unknown environment 404', async () => {
    expect((await events('', server.readToken)).status).to.equal(200);
    expect((await events('', server.otherToken)).status).to.equal(403);
    expect((await server.request('GET', '/api/v2/environments/acme/nope/events')).status).to.equal(404);
    expect((await server.request('GET', '/api/v2/environments/acme/prod/events', { token: null })).status).to.equal(401);
  });
});

describe('environment events of snapshots kept before migration 0012', () => {
  it('are computed from the snapshots when the migration applies: the same as stored at report time, compliance unknown', async () => {
    const server = await startTestServer();
    let store: Store | undefined;
    try {
      await makeHistory(server.request);
      await server.stop();
      store = await reopenTestStore(server, []);
      const org = Number((await store.findOrganization('acme'))!.id);
      const environment = (await store.findEnvironment(org, 'acme', 'prod'))!;
      const list = (s: Store) => s.listEnvironmentEvents(environment.id, { oldestFirst: true, offset: 0, limit: 100 });
      const atReportTime = await list(store);
      expect(atReportTime.total).to.equal(7);
      await store.close();
      // Back to the database as it was before the migration.
      store = await reopenTestStore(server, migrationsUndone('0012_environment_events'));
      const backfilled = await list(store);
      expect(backfilled.items).to.deep.equal(atReportTime.items.map((e) => ({ ...e, artifactCompliant: null, snapshotCompliant: null })));
    } finally {
      await store?.close().catch(() => {});
      await server.close();
    }
  });
});
