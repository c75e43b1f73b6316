import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A page's text as a person reads it: tags dropped, entities of the escaper decoded, spaces folded. */
export function textOf(html: string): string {
  const body = html.replace(/^[^]*?<main[^>]*>/, '').replace(/<\/main>[^]*$/, '');
  return body.replace(/<(script|style)[^]*?<\/\1>/g, ' ').replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ').trim();
}

/**
 * The environment, deployments, approvals and integrity pages over HTTP (the browser walks them in
 * console-extras.browser.test.ts). The story: trail b1 of flow app attests api:1 with passing
 * tests, b2 attests web:1 with failing ones; prod runs api:1 and web:1, then db:1 joins;
 * staging runs web:1; api:1 has an approval for prod with two reviews.
 */
describe('console pages: environment, deployments, approvals, integrity', function () {
  this.timeout(60_000);
  let server: TestServer;
  let cookie = '';
  const ok = (res: { status: number; body: unknown }) => expect([200, 201], JSON.stringify(res.body)).to.include(res.status);
  const page = async (path: string, as = cookie) => {
    const res = await fetch(server.url + path, { redirect: 'manual', headers: { cookie: as } });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  const signIn = async (token: string) => {
    const res = await fetch(`${server.url}/ui/sign-in`, {
      method: 'POST', redirect: 'manual', headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }),
    });
    expect(res.status).to.equal(303);
    return res.headers.get('set-cookie')!.split(';')[0]!;
  };
  const pod = (name: string, image: string) => ({ podName: name, namespace: 'ns', digests: { [image.split(':')[0]!]: sha(image) }, creationTimestamp: 1_764_000_000 });

  before(async () => {
    server = await startTestServer();
    for (const [trail, image, failures] of [['b1', 'api:1', 0], ['b2', 'web:1', 2]] as const) {
      ok(await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: trail, repo_info: { name: 'acme/app', url: 'https://git.example.com/acme/app' } }) } }));
      const data = { attestation_name: 'unit', junit_results: [{ name: 's', failures, errors: 0, skipped: 0, total: 3, duration: 1, timestamp: null }], artifact_fingerprint: sha(image) };
      ok(await server.request('POST', `/api/v2/attestations/acme/app/trail/${trail}/junit`, { form: { data_json: JSON.stringify(data) } }));
    }
    ok(await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'prod', type: 'K8S' } }));
    ok(await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'staging', type: 'K8S' } }));
    ok(await server.request('PUT', '/api/v2/environments/acme/prod/report/K8S', { json: { artifacts: [pod('a1', 'api:1'), pod('a2', 'api:1'), pod('w1', 'web:1')] } }));
    ok(await server.request('PUT', '/api/v2/environments/acme/prod/report/K8S', { json: { artifacts: [pod('a1', 'api:1'), pod('a2', 'api:1'), pod('w1', 'web:1'), pod('d1', 'db:1')] } }));
    ok(await server.request('PUT', '/api/v2/environments/acme/staging/report/K8S', { json: { artifacts: [pod('w1', 'web:1')] } }));
    const review = (state: string, by: string) => ({ state, approved_by: by, comment: `${by}: <script>alert(1)</script>`, approval_url: 'javascript:alert(2)' });
    ok(await server.request('POST', '/api/v2/approvals/acme/app', { json: { artifact_fingerprint: sha('api:1'), description: 'release 1', src_commit_list: [], environment: 'prod', approvals: [review('APPROVED', 'alice')] } }));
    ok(await server.request('PUT', '/api/v2/approvals/acme/app/1', { json: review('APPROVED', 'bob') }));
    cookie = await signIn(server.readToken);
  });
  after(() => server.close());

  it('environment: what runs, each artifact with its fingerprint, whether a compliant trail attested it and which approval covered it', async () => {
    const { status, headers, html } = await page('/ui/acme/environments/prod');
    expect(status).to.equal(200);
    expect(headers.get('content-security-policy')).to.contain("script-src 'self'");
    const text = textOf(html);
    expect(text).to.contain('prod: 3 artifacts running, 1 attested by a compliant trail, 2 not (snapshot #2');
    const row = (artifact: string) => textOf(/<tr[^>]*data-artifact="([^"]*)"[^]*?<\/tr>/g.exec(html.slice(html.indexOf(`data-artifact="${artifact}"`) - 4))![0]);
    expect(row('api')).to.contain(sha('api:1')).and.contain('2').and.contain('✓ ATTESTED BY A COMPLIANT TRAIL').and.contain('app/b1').and.contain('app #1 (approved)');
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
    expect(prod.html.match(/<tbody>[^]*?<\/tbody>/g)!.at(-1)!.match(/<tr/g)).to.have.length(2);
    expect(prod.html).to.contain('href="/ui/acme/environments/prod?snapshot=2"').and.contain('href="/ui/acme/flows/app/trails/b2"').and.contain('no trail attested it');
    expect(prod.html).to.contain('href="/ui/acme/deployments?env_name=prod&amp;per_page=2&amp;page=2"');
    const staging = textOf((await page('/ui/acme/deployments?env_name=staging')).html);
    expect(staging).to.contain('1 deployment to staging').and.contain('web');
    const none = textOf((await page('/ui/acme/deployments?repo_name=acme/none&start_ts=2020-01-01&end_ts=2020-02-01')).html);
    expect(none).to.contain('0 deployments from acme/none from 2020-01-01 00:00 UTC to 2020-02-01 00:00 UTC').and.contain('No deployment matches');
  });

  it('approvals: the list of a flow and one approval with every review, hostile review text shown as text', async () => {
    const list = textOf((await page('/ui/acme/flows/app/approvals')).html);
    expect(list).to.contain('Approvals of app').and.match(/#1 ✓ APPROVED api [0-9a-f]{12} prod 2/);
    const one = await page('/ui/acme/flows/app/approvals/1');
    const text = textOf(one.html);
    expect(text).to.contain('Approval #1 of app ✓ APPROVED').and.contain(sha('api:1')).and.contain('Reviews (2)');
    expect(text).to.contain('alice alice: <script>alert(1)</script>').and.contain('bob bob: <script>alert(1)</script>');
    expect(one.html).not.to.contain('<script>').and.not.to.contain('href="javascript:');
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
    for (const path of ['/ui/acme/environments/prod', '/ui/acme/deployments', '/ui/acme/flows/app/approvals', '/ui/acme/flows/app/approvals/1', '/ui/acme/integrity?run=1']) {
      expect((await page(path, other)).status, path).to.equal(404);
      const out = await page(path, '');
      expect([out.status, out.headers.get('location')?.startsWith('/ui/sign-in?next=')], path).to.deep.equal([303, true]);
    }
  });
});
