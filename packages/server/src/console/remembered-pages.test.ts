// @database
/**
 * Pages whose HTML the console remembers (page.ts `remembered`): each shows a write on the next
 * request; the deployments page names until
 * when what it shows of the time holds (a window ending now gains or loses a row, a time written
 * "3 min ago" moves), a commit ends it sooner, and one organisation's or role's page is never
 * another's. The cache's own predicate is tested in page-cache.test.ts.
 */
import { expect } from 'chai';
import { render } from 'preact-render-to-string';
import type { Store } from '@trailproof/server';
import { openTestStore, startTestServer, type TestServer } from '@trailproof/server/testing';
import { playExtrasStory, signInTo, textOf } from '../../../../test/support/console-story.ts';
import { defaultWindowSeconds } from '../operations/list-deployments.ts';
import { notingTimes } from './components/time.tsx';
import { createPageCache } from './page-cache.ts';
import type { PageInput } from './page.ts';
import { deploymentsPage } from './pages/deployments.tsx';

const day = 86_400;
/** A day's start: the minutes and the days of the window fall where the tests say. */
const base = 1_760_000_000 - (1_760_000_000 % day);

describe('console: the deployments page names until when it holds', function () {
  this.timeout(60_000);
  let store: Store;
  let cleanup: () => void | Promise<void>;
  let org = 0;
  let envId = 0;
  let snapshot = 0;
  const deploy = (at: number, name: string) =>
    store.insertDeployments([
      {
        organizationId: org,
        environmentId: envId,
        envName: 'prod',
        snapshotIndex: ++snapshot,
        fingerprint: `f-${name}`,
        artifactName: name,
        deployedAt: at,
        trailId: null,
        repoName: null,
      },
    ]);
  /** The page at `now` for `query`: its `until` and its content as HTML. */
  const pageAt = async (now: number, query = '') => {
    const input: PageInput = {
      store,
      org: { id: org, name: 'acme' },
      role: 'reader',
      params: { org: 'acme' },
      query: new URLSearchParams(query),
      // A cache that keeps (as SQLite's does), whatever the backend: the page reads the window's edges only for one.
      cache: createPageCache(() => 1),
      now,
      base: '/ui',
      url: `/ui/acme/deployments?${query}`,
      apiBase: 'http://localhost/api/v2',
    };
    // As the console writes it: the page's own until, and that of each "how long ago" it writes.
    const { value, until } = await notingTimes(async () => {
      const result = await deploymentsPage.render(input);
      if (!('title' in result)) throw new Error('the deployments page answered no content');
      return { until: result.until ?? Number.NEGATIVE_INFINITY, html: render(result.content) };
    });
    return { until: Math.min(value.until, until), html: value.html };
  };

  beforeEach(async () => {
    ({ store, cleanup } = await openTestStore());
    org = Number((await store.ensureOrganization('acme', 0)).id);
    envId = (await store.upsertEnvironment(org, { name: 'prod', type: 'K8S' }, base)).id;
  });
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  it('holds until the oldest deployment of a window ending now leaves it, and shows one fewer just after', async () => {
    const oldest = base + 1000;
    await deploy(oldest, 'old');
    await deploy(base + 5000, 'new');
    // 30 s before the oldest leaves; the next minute 50 s on. One row a page: the oldest's own "27 days ago" is not shown.
    const now = oldest + defaultWindowSeconds - 30;
    const first = await pageAt(now, 'per_page=1');
    expect(first.until).to.equal(oldest + defaultWindowSeconds);
    expect(textOf(first.html)).to.contain('2 deployments from');
    expect((await pageAt(first.until! - 0.001, 'per_page=1')).html).to.equal(first.html);
    expect(textOf((await pageAt(first.until! + 0.001, 'per_page=1')).html)).to.contain('1 deployment from');
  });

  it('holds until a deployment stored after the window’s end enters it', async () => {
    const now = base + 10 * day + 5;
    await deploy(now - 3 * day, 'running');
    // Stored with a time still to come (a reporter's clock ahead of the server's).
    await deploy(now + 20, 'ahead');
    const first = await pageAt(now);
    expect(first.until).to.equal(now + 20);
    expect(textOf(first.html)).to.contain('1 deployment from');
    expect((await pageAt(now + 19.999)).html).to.equal(first.html);
    expect(textOf((await pageAt(now + 20)).html)).to.contain('2 deployments from');
  });

  it('holds until a row’s "how long ago" or the window’s minute moves, and not by the window when its end is asked', async () => {
    const now = base + 10 * day + 5;
    await deploy(now - 42, 'fresh');
    // "42 s ago" until its next second.
    const fresh = await pageAt(now);
    expect(fresh.until).to.equal(now + 0.5);
    expect(fresh.html).to.contain('42 s ago');
    expect((await pageAt(now + 0.499)).html).to.equal(fresh.html);
    expect((await pageAt(now + 0.5)).html).to.contain('43 s ago');
    // Hours ago: the window's next minute comes first (the summary writes its edges to the minute).
    const later = now + 5 * 3600;
    const minute = await pageAt(later);
    expect(minute.until).to.equal(Math.floor(later / 60) * 60 + 60);
    expect(textOf((await pageAt(minute.until!)).html)).not.to.equal(textOf(minute.html));
    // An asked end fixes the window: only the row's "5 h ago" (until its next hour) bounds it.
    const asked = await pageAt(later, `end_ts=${later}`);
    expect(asked.until).to.equal(now - 42 + 6 * 3600 - 0.5);
  });
});

describe('console: a remembered page over HTTP', function () {
  this.timeout(60_000);
  let server: TestServer;
  const page = async (path: string, cookie: string) => {
    const res = await fetch(server.url + path, { redirect: 'manual', headers: { cookie } });
    return { status: res.status, html: await res.text() };
  };
  before(async () => {
    server = await startTestServer();
    await playExtrasStory(server);
  });
  after(() => server.close());

  it('shows what a write committed on the next request', async () => {
    const cookie = await signInTo(server, server.readToken);
    const first = await page('/ui/acme/deployments', cookie);
    expect(textOf(first.html)).to.contain('4 deployments from');
    const report = await server.request('PUT', '/api/v2/environments/acme/staging/report/K8S', {
      json: { artifacts: [{ podName: 'n1', namespace: 'ns', digests: { notify: 'a'.repeat(64) }, creationTimestamp: 1_764_000_000 }] },
    });
    expect(report.status).to.equal(201);
    const after = await page('/ui/acme/deployments', cookie);
    expect(textOf(after.html)).to.contain('5 deployments from').and.contain('notify');
  });

  it('shows a trail’s new attestation, a flow’s new trail and an environment’s new artifact on the next request', async () => {
    const cookie = await signInTo(server, server.readToken);
    const trail = await page('/ui/acme/flows/app/trails/b1', cookie);
    const flow = await page('/ui/acme/flows/app', cookie);
    const prod = await page('/ui/acme/environments/prod', cookie);
    expect(trail.html).not.to.contain('lint-report');
    expect(flow.html).not.to.contain('b3-new');
    expect(prod.html).not.to.contain('cache-svc');
    const junit = {
      attestation_name: 'lint-report',
      junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 1, timestamp: null }],
    };
    expect((await server.request('POST', '/api/v2/attestations/acme/app/trail/b1/junit', { form: { data_json: JSON.stringify(junit) } })).status).to.equal(201);
    expect((await page('/ui/acme/flows/app/trails/b1', cookie)).html).to.contain('lint-report');
    expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 'b3-new' }) } })).status).to.be.oneOf([
      200, 201,
    ]);
    expect((await page('/ui/acme/flows/app', cookie)).html).to.contain('b3-new');
    const pods = ['a1', 'a2', 'w1', 'd1', 'c1'].map((name, i) => ({
      podName: name,
      namespace: 'ns',
      digests: { [['api', 'api', 'web', 'db', 'cache-svc'][i]!]: (i === 4 ? 'c' : String(i)).repeat(64) },
      creationTimestamp: 1_764_000_000,
    }));
    expect((await server.request('PUT', '/api/v2/environments/acme/prod/report/K8S', { json: { artifacts: pods } })).status).to.equal(201);
    expect((await page('/ui/acme/environments/prod', cookie)).html).to.contain('cache-svc');
  });

  it('shows a new trail in the trails view and the search, and a new environment in the list, on the next request', async () => {
    const cookie = await signInTo(server, server.readToken);
    for (const path of ['/ui/acme/trails', '/ui/acme/search?q=b4-', '/ui/acme/environments']) expect((await page(path, cookie)).status).to.be.oneOf([200, 404]);
    expect((await page('/ui/acme/trails', cookie)).html).not.to.contain('b4-later');
    expect((await page('/ui/acme/search?q=b4-', cookie)).html).not.to.contain('b4-later');
    expect((await page('/ui/acme/environments', cookie)).html).not.to.contain('qa-later');
    expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 'b4-later' }) } })).status).to.be.oneOf([
      200, 201,
    ]);
    expect((await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'qa-later', type: 'K8S' } })).status).to.be.oneOf([200, 201]);
    expect((await page('/ui/acme/trails', cookie)).html).to.contain('b4-later');
    expect((await page('/ui/acme/search?q=b4-', cookie)).html).to.contain('b4-later');
    expect((await page('/ui/acme/environments', cookie)).html).to.contain('qa-later');
  });

  it('never shows one organisation’s or role’s page to another', async () => {
    const globexEnv = await server.request('PUT', '/api/v2/environments/globex', { token: server.otherToken, json: { name: 'globex-only-env', type: 'K8S' } });
    expect(globexEnv.status).to.be.oneOf([200, 201]);
    const globexReport = await server.request('PUT', '/api/v2/environments/globex/globex-only-env/report/K8S', {
      token: server.otherToken,
      json: { artifacts: [{ podName: 'g1', namespace: 'ns', digests: { secret: 'b'.repeat(64) }, creationTimestamp: 1_764_000_000 }] },
    });
    expect(globexReport.status).to.equal(201);
    const reader = await signInTo(server, server.readToken);
    const member = await signInTo(server, server.token);
    const globex = await signInTo(server, server.otherToken);
    // Asked one after the other with no commit between: each its own.
    const asReader = await page('/ui/acme/deployments', reader);
    const asMember = await page('/ui/acme/deployments', member);
    const asGlobex = await page('/ui/globex/deployments', globex);
    expect(asReader.html).to.contain('<span class="role">reader</span>').and.not.contain('globex-only-env');
    expect(asMember.html).to.contain('<span class="role">member</span>').and.not.contain('globex-only-env');
    expect(textOf(asGlobex.html)).to.contain('1 deployment from').and.contain('globex-only-env');
    expect(asGlobex.html).not.to.contain('staging');
    // Another organisation's page is no page at all, remembered or not.
    expect((await page('/ui/acme/deployments', globex)).status).to.equal(404);
    expect((await page('/ui/globex/deployments', reader)).status).to.equal(404);
  });
});
