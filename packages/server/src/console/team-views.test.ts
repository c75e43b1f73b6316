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
});
