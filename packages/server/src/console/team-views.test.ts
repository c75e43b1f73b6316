// @database
/**
 * The organisation-wide trails view over HTTP (the browser walks it in team-views.browser.test.ts):
 * every filter narrows as it says, in the query string; columns sort both ways; another
 * organisation's trails never show; a mistyped filter shows the page, not an error.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { signInTo, textOf } from '../../../../test/support/console-story.ts';
import { commitOf, playTeamStory } from '../../../../test/support/team-story.ts';
import { failedTestTitle } from './pages/trail-parts.tsx';

describe('console: the organisation-wide trails view', function () {
  this.timeout(60_000);
  let server: TestServer;
  let cookie = '';
  const page = async (path: string) => {
    const res = await fetch(server.url + path, { redirect: 'manual', headers: { cookie } });
    return { status: res.status, html: await res.text() };
  };
  /** The trail names of the view's rows, in the order shown. */
  const trailsShown = async (query: string) => {
    const { status, html } = await page(`/ui/acme/trails${query}`);
    expect(status, query).to.equal(200);
    return [...html.matchAll(/<tr><td><a href="\/ui\/acme\/flows\/[^/]+\/trails\/([^"]+)">/g)].map((m) => m[1]);
  };
  before(async () => {
    server = await startTestServer();
    await playTeamStory(server);
    cookie = await signInTo(server, server.readToken);
  });
  after(() => server.close());

  it('lists every flow’s trails newest first, each with its flow, compliance, commit, branch and author, and none of another organisation', async () => {
    expect(await trailsShown('')).to.deep.equal(['w1', 'f1', 'a2', 'a1']);
    const { html } = await page('/ui/acme/trails');
    const text = textOf(html);
    expect(text).to.contain('4 trails match.').and.not.contain('secret-of-globex');
    expect(text).to.match(/w1 web ✗ NON-COMPLIANT [0-9a-f]{7} main Ada <ada@example.com>/);
    expect(text).to.match(/a1 app ✓ COMPLIANT [0-9a-f]{7} main/);
    expect(html).to.contain('href="/ui/acme/trails"');
  });

  it('filters by compliance, flow, branch and commit, together, from the query string', async () => {
    expect(await trailsShown('?compliance=non-compliant')).to.deep.equal(['w1', 'a2']);
    expect(await trailsShown('?compliance=compliant')).to.deep.equal(['f1', 'a1']);
    expect(await trailsShown('?flow=app')).to.deep.equal(['f1', 'a2', 'a1']);
    expect(await trailsShown('?branch=main&flow=app')).to.deep.equal(['a2', 'a1']);
    expect(await trailsShown(`?commit=${commitOf('a2').slice(0, 8)}`)).to.deep.equal(['a2']);
    expect(await trailsShown(`?commit=${commitOf('a2').toUpperCase()}`)).to.deep.equal(['a2']);
    expect(await trailsShown('?compliance=non-compliant&branch=main&flow=web')).to.deep.equal(['w1']);
    const { html } = await page('/ui/acme/trails?compliance=non-compliant&branch=main');
    expect(html).to.contain('<option value="non-compliant" selected>').and.contain('name="branch" value="main"');
  });

  it('filters by the time range a trail began in', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(await trailsShown(`?from=${today}&until=${tomorrow}`)).to.have.length(4);
    expect(await trailsShown(`?from=${tomorrow}`)).to.deep.equal([]);
    expect(await trailsShown(`?until=${today}`)).to.deep.equal([]);
  });

  it('sorts by trail name and by flow, both ways, the order said in words', async () => {
    expect(await trailsShown('?sort=name')).to.deep.equal(['a1', 'a2', 'f1', 'w1']);
    expect(await trailsShown('?sort=name&sort_direction=desc')).to.deep.equal(['w1', 'f1', 'a2', 'a1']);
    expect(await trailsShown('?sort=flow&sort_direction=desc')).to.deep.equal(['w1', 'f1', 'a2', 'a1']);
    expect(await trailsShown('?sort=created&sort_direction=asc')).to.deep.equal(['a1', 'a2', 'f1', 'w1']);
    expect(textOf((await page('/ui/acme/trails?sort=name')).html)).to.contain('Trail ▲ ascending');
  });

  it('pages the view, and the compliance filter goes on to older trails past a page', async () => {
    expect(await trailsShown('?per_page=2')).to.deep.equal(['w1', 'f1']);
    expect(await trailsShown('?per_page=2&page=2')).to.deep.equal(['a2', 'a1']);
    const first = await page('/ui/acme/trails?compliance=compliant&per_page=1');
    const next = /href="([^"]*scan=\d+[^"]*)" rel="next"/.exec(first.html)![1]!.replace(/&amp;/g, '&');
    expect(await trailsShown(next.slice(next.indexOf('?')))).to.deep.equal(['a1']);
  });

  it('a mistyped filter is left out, a flow that does not exist is a 404 page, and nothing is a 500', async () => {
    expect(await trailsShown('?compliance=maybe&commit=not-hex&sort=evil&from=yesterday')).to.have.length(4);
    const missing = await page('/ui/acme/trails?flow=nowhere');
    expect(missing.status).to.equal(404);
    expect(textOf(missing.html)).to.contain("There is no flow 'nowhere' in acme.");
    expect(await trailsShown(`?branch=${'x'.repeat(5000)}&flow=%00`)).to.have.length(4);
    expect((await page('/ui/globex/trails')).status).to.equal(404);
  });

  it('downloads the signed checkpoint and audit packages through the session, and only with one', async () => {
    // Checkpoints are signed in the background after writes: one signed now of the whole tree stays the latest.
    await server.store.makeCheckpoints!();
    const api = await server.request('GET', '/api/v2/log/acme/checkpoint');
    const checkpoint = await fetch(`${server.url}/ui/acme/log/checkpoint`, { headers: { cookie } });
    expect(checkpoint.status).to.equal(200);
    expect(checkpoint.headers.get('content-disposition')).to.contain('acme-checkpoint.txt');
    expect(await checkpoint.text()).to.equal(Buffer.from(api.bytes).toString('utf8'));
    for (const query of ['', '?flow=app', '?flow=app&trail=a2', '?since=2026-01-01&until=2100-01-01']) {
      const res = await fetch(`${server.url}/ui/acme/log/audit-package${query}`, { headers: { cookie } });
      expect(res.status, query).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/gzip');
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect([bytes[0], bytes[1]], query).to.deep.equal([0x1f, 0x8b]);
    }
    expect((await fetch(`${server.url}/ui/acme/log/audit-package?flow=nowhere`, { headers: { cookie } })).status).to.equal(404);
    expect((await fetch(`${server.url}/ui/acme/log/audit-package?trail=a2`, { headers: { cookie } })).status).to.equal(400);
    expect((await fetch(`${server.url}/ui/acme/log/audit-package`, { redirect: 'manual' })).status).to.equal(303);
    expect((await fetch(`${server.url}/ui/globex/log/checkpoint`, { headers: { cookie } })).status).to.equal(404);
    const trailPage = await page('/ui/acme/flows/app/trails/a2');
    expect(trailPage.html).to.contain('href="/ui/acme/log/audit-package?flow=app&amp;trail=a2"');
    expect((await page('/ui/acme/integrity')).html).to.contain('href="/ui/acme/log/checkpoint"');
  });

  it('the trail page: human headings, the commit block once with a copy button, the badge in words', async () => {
    const { html } = await page('/ui/acme/flows/app/trails/a2');
    const text = textOf(html);
    expect(text).not.to.match(/git_commit_info|created_by|repo_info|LATEST: counts/);
    expect(text).to.contain('Latest of its name: counts for compliance').and.contain('Created by');
    expect(html.split(commitOf('a2')).length - 1, 'the commit SHA: once as text, once to copy, once in the facts').to.equal(3);
    expect(html)
      .to.contain(`data-copy="${commitOf('a2')}"`)
      .and.not.contain('Commit of this attestation');
  });
});

describe('console: the search box reaches trails', function () {
  this.timeout(60_000);
  let server: TestServer;
  let cookie = '';
  before(async () => {
    server = await startTestServer();
    await playTeamStory(server);
    cookie = await signInTo(server, server.readToken);
  });
  after(() => server.close());
  const search = async (q: string) => {
    const res = await fetch(`${server.url}/ui/acme/search?q=${encodeURIComponent(q)}`, { redirect: 'manual', headers: { cookie } });
    return { status: res.status, html: await res.text() };
  };

  it('by the start of a name, by commit, and never another organisation’s', async () => {
    const named = await search('a');
    expect(named.status).to.equal(200);
    expect(named.html).to.contain('href="/ui/acme/flows/app/trails/a2"').and.contain('href="/ui/acme/flows/app/trails/a1"').and.not.contain('trails/w1');
    const byCommit = await search(commitOf('w1').slice(0, 9));
    expect(byCommit.html).to.contain('href="/ui/acme/flows/web/trails/w1"').and.not.contain('trails/a1"');
    expect((await search('secret')).html).not.to.contain('secret-of-globex');
    expect(textOf((await search('zz%_')).html)).to.contain('No trail of acme has a name starting with zz%_');
  });

  it('finds artifacts by the start of their name, in name order, LIKE’s wildcards and markup as text, never another organisation’s', async () => {
    const attest = async (org: string, filename: string, fingerprint: string, token = server.token) => {
      const payload = {
        fingerprint: fingerprint.repeat(64),
        filename,
        git_commit: commitOf('a1'),
        build_url: 'https://ci.example.com/1',
        commit_url: 'https://example.com/c',
        trail_name: 'a1',
        template_reference_name: 'image',
      };
      const res = await server.request('POST', `/api/v2/artifacts/${org}/app`, { json: payload, token });
      expect(res.status, `${filename}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
    };
    await attest('acme', 'registry.example/shop:2', 'b');
    await attest('acme', 'registry.example/shop:1', 'a');
    await attest('acme', 'registry.example/shopping-cart:1', 'c');
    await attest('acme', 'registry.example/shop_%:9', 'd');
    await attest('acme', '<b>registry</b>', 'e');
    await attest('globex', 'registry.example/shop:secret', 'f', server.otherToken);
    const found = await search('registry.example/shop:');
    expect(found.status).to.equal(200);
    const order = [...found.html.matchAll(/href="\/ui\/acme\/flows\/app\/artifacts\/([0-9a-f]{64})/g)].map((m) => m[1]![0]);
    expect(order, 'by name: shop:1 (a), shop:2 (b)').to.deep.equal(['a', 'b']);
    expect(textOf(found.html)).to.contain('registry.example/shop:1').and.contain('registry.example/shop:2').and.not.contain('shopping-cart');
    expect(found.html).not.to.contain('secret').and.not.to.contain('f'.repeat(64));
    expect([...(await search('registry.example/shop_%')).html.matchAll(/artifacts\/([0-9a-f]{64})/g)].map((m) => m[1]![0])).to.deep.equal(['d']);
    const marked = await search('<b>reg');
    expect(marked.html).to.contain('&lt;b>registry&lt;/b>').and.not.to.contain('<b>registry</b>');
    expect(textOf((await search('nothing-like-it')).html)).to.contain('No artifact of acme has a name starting with nothing-like-it');
  });
});

describe('console: a failed test’s title', () => {
  it('is Class.method, the class once where the name carries it, a sentence with its class after it', () => {
    expect(failedTestTitle({ className: 'tests.api.Login', name: 'rejects a wrong password' })).to.equal('rejects a wrong password (tests.api.Login)');
    expect(failedTestTitle({ className: 'tests.api.Login', name: 'tests.api.Login.test_wrong' })).to.equal('tests.api.Login.test_wrong');
    expect(failedTestTitle({ className: '', name: '  spaced  ' })).to.equal('spaced');
    expect(failedTestTitle({ className: 'Cart', name: 'applies_discount' })).to.equal('Cart.applies_discount');
    expect(failedTestTitle({ className: 'x', name: '' })).to.equal('unnamed test (x)');
  });
});
