// @database
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { playExtrasStory, sha, signInTo, textOf } from '../../../../test/support/console-story.ts';

/**
 * The environment, deployments, approvals and integrity pages over HTTP (the browser walks them in
 * extras.browser.test.ts), on the story of test/support/console-story.ts.
 */
describe('console pages: environment, deployments, approvals, integrity', function () {
  this.timeout(60_000);
  let server: TestServer;
  let cookie = '';
  const page = async (path: string, as = cookie) => {
    const res = await fetch(server.url + path, { redirect: 'manual', headers: { cookie: as } });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  const signIn = (token: string) => signInTo(server, token);
  before(async () => {
    server = await startTestServer();
    await playExtrasStory(server);
    cookie = await signIn(server.readToken);
  });
  after(() => server.close());

  it('environment: what runs, each artifact with its fingerprint, whether a compliant trail attested it and which approval covered it', async () => {
    const { status, headers, html } = await page('/ui/acme/environments/prod');
    expect(status).to.equal(200);
    expect(headers.get('content-security-policy')).to.contain("script-src 'self'");
    const text = textOf(html);
    expect(text).to.contain('prod: 3 artifacts running, 1 attested by a compliant trail, 2 not (snapshot #2');
    const row = (artifact: string) =>
      textOf(/<tr[^>]*data-artifact="([^"]*)"[\s\S]*?<\/tr>/g.exec(html.slice(html.indexOf(`data-artifact="${artifact}"`) - 4))![0]);
    expect(row('api'))
      .to.contain(sha('api:1'))
      .and.contain('2')
      .and.contain('✓ ATTESTED BY A COMPLIANT TRAIL')
      .and.contain('app/b1')
      .and.contain('app #1 (approved)');
    expect(row('web')).to.contain(sha('web:1')).and.contain('✗ NO COMPLIANT TRAIL').and.contain('app/b2').and.contain('none');
    expect(row('db')).to.contain('✗ NOT ATTESTED').and.contain('no trail attested it');
    expect(html).to.contain('href="/ui/acme/flows/app/trails/b1"').and.contain('href="/ui/acme/flows/app/approvals/1"');
    // The timeline, newest first: db started at #2; api and web at #1.
    expect(text).to.match(/#2 .* started .*db/);
    expect(text.indexOf('db')).to.be.lessThan(text.lastIndexOf('#1'));
    expect(text).to.contain('Latest deployments').and.contain('All 3 deployments to prod in the last 28 days');
  });

  it('environment at a snapshot: what ran then, and a 404 page for a snapshot that does not exist', async () => {
    const first = textOf((await page('/ui/acme/environments/prod?snapshot=1')).html);
    expect(first).to.contain('Running at snapshot #1').and.contain('prod: 2 artifacts running, 1 attested by a compliant trail, 1 not (snapshot #1');
    const missing = await page('/ui/acme/environments/prod?snapshot=9');
    expect(missing.status).to.equal(404);
    expect(textOf(missing.html)).to.contain('no snapshot 9');
    expect((await page('/ui/acme/environments/nowhere')).status).to.equal(404);
  });

  it('deployments: the list under the API filters, each linked to its snapshot and trail, with a chart per day', async () => {
    const all = await page('/ui/acme/deployments');
    expect(all.status).to.equal(200);
    expect(textOf(all.html)).to.match(/^acme › deployments Deployments .* 4 deployments from \d{4}-\d\d-\d\d \d\d:\d\d UTC to/);
    expect(all.html).to.contain('<svg').and.contain('role="img"').and.contain('4 deployments in 29 days');
    const prod = await page('/ui/acme/deployments?env_name=prod&per_page=2');
    const text = textOf(prod.html);
    expect(text).to.contain('3 deployments to prod from');
    expect(text).to.contain('Page 1 of 2 (3 in all)');
    expect(
      prod.html
        .match(/<tbody>[\s\S]*?<\/tbody>/g)!
        .at(-1)!
        .match(/<tr/g),
    ).to.have.length(2);
    expect(prod.html)
      .to.contain('href="/ui/acme/environments/prod?snapshot=2"')
      .and.contain('href="/ui/acme/flows/app/trails/b2"')
      .and.contain('no trail attested it');
    expect(prod.html).to.contain('href="/ui/acme/deployments?env_name=prod&amp;per_page=2&amp;page=2"');
    // Each row says whether the artifact was compliant when it started, as its snapshot judged it.
    const rows = [
      ...all.html
        .match(/<tbody>[\s\S]*?<\/tbody>/g)!
        .at(-1)!
        .matchAll(/<tr>[\s\S]*?<\/tr>/g),
    ].map((m) => textOf(m[0]));
    expect(rows.map((r) => r.replace(/^.*\(.*? ago\) /, ''))).to.deep.equal([
      `web ${sha('web:1').slice(0, 12)} staging #1 app/b2 ✗ NON-COMPLIANT not approved`,
      `db ${sha('db:1').slice(0, 12)} prod #2 no trail attested it ✗ NON-COMPLIANT not approved`,
      `web ${sha('web:1').slice(0, 12)} prod #1 app/b2 ✗ NON-COMPLIANT not approved`,
      `api ${sha('api:1').slice(0, 12)} prod #1 app/b1 ✓ COMPLIANT approved: app #1`,
    ]);
    expect(all.html).to.contain('<th scope="col">When deployed</th>');
    const staging = textOf((await page('/ui/acme/deployments?env_name=staging')).html);
    expect(staging).to.contain('1 deployment to staging').and.contain('web');
    const none = textOf((await page('/ui/acme/deployments?repo_name=acme/none&start_ts=2020-01-01&end_ts=2020-02-01')).html);
    expect(none).to.contain('0 deployments from acme/none from 2020-01-01 00:00 UTC to 2020-02-01 00:00 UTC').and.contain('No deployment matches');
  });

  it('approvals: the list of a flow and one approval with every review, hostile review text shown as text', async () => {
    const listHtml = (await page('/ui/acme/flows/app/approvals')).html;
    expect(listHtml).to.contain(`href="/ui/acme/artifacts/${sha('api:1')}"`);
    const list = textOf(listHtml);
    expect(list)
      .to.contain('Approvals of app')
      .and.match(/#1 ✓ APPROVED api [0-9a-f]{12} prod 2/);
    const one = await page('/ui/acme/flows/app/approvals/1');
    const text = textOf(one.html);
    expect(text).to.contain('Approval #1 of app ✓ APPROVED').and.contain(sha('api:1')).and.contain('Reviews (2)');
    expect(text).to.contain('alice alice: <script>alert(1)</script>').and.contain('bob bob: <script>alert(1)</script>');
    expect(one.html).not.to.contain('<script>').and.not.to.contain('href="javascript:');
    // The approved artifact links to its page, from the list and from the approval.
    expect(one.html).to.contain(`href="/ui/acme/artifacts/${sha('api:1')}"`);
    expect((await page('/ui/acme/flows/app/approvals/7')).status).to.equal(404);
    expect((await page('/ui/acme/flows/app/approvals/x')).status).to.equal(404);
  });

  it('integrity: runs the evidence check only when asked, and says the evidence is intact', async () => {
    const idle = textOf((await page('/ui/acme/integrity')).html);
    expect(idle).to.contain('Run the check now').and.not.contain('INTACT');
    const run = await page('/ui/acme/integrity?run=1');
    expect(run.status).to.equal(200);
    expect(textOf(run.html)).to.match(/Result ✓ INTACT The evidence of acme is intact: \d+ chain records checked/);
  });

  it("another organisation's session sees 404 on every one of these pages, and a signed-out browser the sign-in page", async () => {
    const other = await signIn(server.otherToken);
    for (const path of [
      '/ui/acme/environments/prod',
      '/ui/acme/deployments',
      '/ui/acme/flows/app/approvals',
      '/ui/acme/flows/app/approvals/1',
      '/ui/acme/integrity?run=1',
    ]) {
      expect((await page(path, other)).status, path).to.equal(404);
      const out = await page(path, '');
      expect([out.status, out.headers.get('location')?.startsWith('/ui/sign-in?next=')], path).to.deep.equal([303, true]);
    }
  });
});

/**
 * Pages remember what they read until the next commit (page-cache.ts): the environment's
 * judged trails, the flow's page of trails, the deployments chart's days. Evidence that arrives
 * after a page was shown shows on the next.
 */
describe('console pages after new evidence', function () {
  this.timeout(60_000);
  let server: TestServer;
  let cookie = '';
  before(async () => {
    server = await startTestServer();
    await playExtrasStory(server);
    cookie = await signInTo(server, server.readToken);
  });
  after(() => server.close());

  const text = async (path: string) => textOf(await (await fetch(server.url + path, { headers: { cookie } })).text());
  const call = async (method: string, path: string, data: object, as: 'form' | 'json' = 'form') => {
    const res = await server.request(method, `/api/v2${path}`, as === 'form' ? { form: { data_json: JSON.stringify(data) } } : { json: data });
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
  };
  const webRow = async () => {
    const html = await (await fetch(`${server.url}/ui/acme/environments/prod`, { headers: { cookie } })).text();
    const at = html.indexOf('data-artifact="web"');
    return { text: textOf(html.slice(at, html.indexOf('</tr>', at))), summary: textOf(html).match(/prod: [^(]*/)?.[0] };
  };

  it('judges a running artifact anew once a compliant trail attested it', async () => {
    for (let i = 0; i < 3; i++) {
      const before = await webRow();
      expect(before.text).to.contain('✗ NO COMPLIANT TRAIL').and.contain('app/b2');
      expect(before.summary).to.equal('prod: 3 artifacts running, 1 attested by a compliant trail, 2 not ');
    }
    await call('PUT', '/trails/acme/app', { name: 'b3' });
    await call('POST', '/attestations/acme/app/trail/b3/junit', {
      attestation_name: 'unit',
      junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 3, duration: 1, timestamp: null }],
      artifact_fingerprint: sha('web:1'),
    });
    const after = await webRow();
    expect(after.text).to.contain('✓ ATTESTED BY A COMPLIANT TRAIL').and.contain('app/b3');
    expect(after.summary).to.equal('prod: 3 artifacts running, 2 attested by a compliant trail, 1 not ');
  });

  it('lists a new trail on the flow page and counts a new deployment in the chart and the timeline', async () => {
    for (let i = 0; i < 2; i++) {
      expect(await text('/ui/acme/flows/app')).not.to.contain('b4');
      expect(await text('/ui/acme/deployments')).to.contain('4 deployments in 29 days');
    }
    await call('PUT', '/trails/acme/app', { name: 'b4' });
    expect(await text('/ui/acme/flows/app')).to.contain('b4');
    await call(
      'PUT',
      '/environments/acme/prod/report/K8S',
      { artifacts: [{ podName: 'n1', namespace: 'ns', digests: { new: sha('new:1') }, creationTimestamp: 1_764_000_000 }] },
      'json',
    );
    expect(await text('/ui/acme/deployments')).to.contain('5 deployments in 29 days');
    expect(await text('/ui/acme/environments/prod')).to.match(/#3 .* started .*new/);
  });
});
