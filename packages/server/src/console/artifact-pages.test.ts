// @database
/**
 * The artifact page, the search box and the per-kind attestation views over HTTP (the browser reads
 * them in artifact.browser.test.ts), on the story of test/support/artifact-story.ts.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { C1, FA, FG, FW, FX, apiName, playArtifactStory, playChurn } from '../../../../test/support/artifact-story.ts';
import { signInTo, textOf } from '../../../../test/support/console-story.ts';

describe('console pages: artifacts, search, attestation kinds', function () {
  this.timeout(120_000);
  let server: TestServer;
  let cookie = '';
  const page = async (path: string, as = cookie) => {
    const res = await fetch(server.url + path, { redirect: 'manual', headers: { cookie: as } });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  before(async () => {
    server = await startTestServer();
    await playArtifactStory(server);
    cookie = await signInTo(server, server.readToken);
  });
  after(() => server.close());

  it('the artifact page: what it is, its state and why (the failing rule), its attestations by kind, where it runs and ran', async () => {
    const { status, html } = await page(`/ui/acme/artifacts/${FA}`);
    expect(status).to.equal(200);
    const text = textOf(html);
    expect(text).to.contain(apiName).and.contain(FA).and.contain(C1).and.contain('NON-COMPLIANT');
    expect(html).to.contain('href="/ui/acme/flows/shop/trails/t1"').and.contain('href="https://ci.example.com/runs/1"');
    // The commit URL was `javascript:`: text, never a link.
    expect(html).not.to.match(/href="\s*javascript:/i);
    // Why: the custom type's rule that was false, with the version that judged it.
    expect(text).to.contain("artifact 'api': attestation 'scan' is not compliant").and.contain('Not compliant: rule .critical == 0 is false (false)');
    expect(text).to.contain('judged by version 1').and.contain('✗ false');
    expect(text).to.contain('unit').and.contain('✓ COMPLIANT');
    // Where: prod runs it (snapshot #1); staging ran it and no longer does.
    expect(html).to.match(/data-environment="prod"[\s\S]*?running[\s\S]*?#1/);
    expect(html).to.match(/data-environment="staging"[\s\S]*?exited[\s\S]*?#2/);
    expect(text).to.contain('Started running in prod#1 environment').and.contain('No longer running in staging#2 environment');
    expect(text).to.contain('api reported to shop/t1');
    // Nothing hostile became markup.
    expect(html).not.to.match(/<script>alert|<img src=x/);
  });

  it("the flow's artifact page is the API's html_url, and answers for that flow only", async () => {
    const api = await server.request('GET', `/api/v2/artifacts/acme/shop/fingerprint/${FA}`, { token: server.readToken });
    const url = new URL((api.body as { html_url: string }).html_url, server.url);
    expect(url.pathname).to.equal(`/ui/acme/flows/shop/artifacts/${FA}`);
    expect((await page(url.pathname)).status).to.equal(200);
    expect((await page(`/ui/acme/flows/nowhere/artifacts/${FA}`)).status).to.equal(404);
    const other = await page(`/ui/acme/flows/shop/artifacts/${FX}`);
    expect(other.status).to.equal(404);
    expect(textOf(other.html)).to.contain("Flow 'shop' has no artifact with fingerprint");
  });

  it('a fingerprint that only ran has its whereabouts; an unknown one, a malformed one and another organisation’s answer 404', async () => {
    const rogue = await page(`/ui/acme/artifacts/${FX}`);
    expect(rogue.status).to.equal(200);
    expect(textOf(rogue.html)).to.contain('rogue').and.contain('No flow reported this artifact').and.contain('NOT REPORTED');
    expect((await page(`/ui/acme/artifacts/${'0'.repeat(64)}`)).status).to.equal(404);
    expect((await page('/ui/acme/artifacts/%3Cscript%3E')).status).to.equal(404);
    // globex's artifact from acme's session: the same 404 as an unknown one.
    const globex = await page(`/ui/acme/artifacts/${FG}`);
    expect(globex.status).to.equal(404);
    expect(globex.html).not.to.contain('secret');
    // acme's artifact page under globex's name, with acme's session: the console's 404 for another organisation.
    expect((await page(`/ui/globex/artifacts/${FA}`)).status).to.equal(404);
    const globexCookie = await signInTo(server, server.otherToken);
    const fromGlobex = await page(`/ui/globex/artifacts/${FA}`, globexCookie);
    expect(fromGlobex.status).to.equal(404);
    expect(fromGlobex.html).not.to.contain('shop');
    expect((await page(`/ui/globex/artifacts/${FG}`, globexCookie)).status).to.equal(200);
  });

  it('search: one match opens the artifact page, several are listed, none says so; bad input is a 400 page that shows it as text', async () => {
    const one = await page(`/ui/acme/search?q=${FA.slice(0, 7).toUpperCase()}`);
    expect(one.status).to.equal(303);
    expect(one.headers.get('location')).to.equal(`/ui/acme/artifacts/${FA}`);
    const several = await page(`/ui/acme/search?q=${C1.slice(0, 10)}`);
    expect(several.status).to.equal(200);
    const text = textOf(several.html);
    expect(text).to.contain('2 artifacts match');
    expect(several.html).to.contain(`href="/ui/acme/flows/shop/artifacts/${FA}"`).and.contain(`href="/ui/acme/flows/shop/artifacts/${FW}"`);
    // globex's artifact on the same commit is not among them.
    expect(several.html).not.to.contain(FG.slice(0, 12));
    const none = await page('/ui/acme/search?q=abcdef0');
    expect(none.status).to.equal(200);
    expect(textOf(none.html)).to.contain('No artifact of acme has a commit or a fingerprint starting with abcdef0');
    // Too short for a SHA, it is the start of a trail's name.
    const short = await page('/ui/acme/search?q=abc');
    expect(short.status).to.equal(200);
    expect(textOf(short.html)).to.contain('No trail of acme has a name starting with abc');
    const hostile = await page(`/ui/acme/search?q=${encodeURIComponent(`<script>alert(1)</script>${'z'.repeat(10_000)}`)}`);
    expect(hostile.status).to.equal(400);
    expect(hostile.html).not.to.contain('<script>alert').and.not.to.contain('z'.repeat(100));
    expect(textOf(hostile.html)).to.contain('7 to 64 hexadecimal characters');
    // The box is on every page of an organisation.
    expect((await page('/ui/acme')).html).to.contain('action="/ui/acme/search"');
  });

  it('links: the trail, environment, deployment and overview pages link each artifact to its page', async () => {
    const href = `href="/ui/acme/artifacts/${FA}"`;
    const trail = await page('/ui/acme/flows/shop/trails/t1');
    expect(trail.html).to.contain(`href="/ui/acme/flows/shop/artifacts/${FA}"`).and.contain(href);
    expect(textOf(trail.html)).to.contain('Not compliant: rule .critical == 0 is false').and.contain('Approvers: bob, carol');
    expect((await page('/ui/acme/environments/prod')).html)
      .to.contain(href)
      .and.contain(`href="/ui/acme/artifacts/${FX}"`);
    expect((await page('/ui/acme/environments/prod?snapshot=1')).html).to.contain(href);
    expect((await page('/ui/acme/deployments')).html).to.contain(href);
    expect((await page('/ui/acme')).html).to.contain(href);
  });

  // Its report, prod's start, staging's start and exit, and 100 in churn: 104 rows, 3 pages (what 1,000 would show, at a tenth of the suite's time).
  it('a history of 100 environment events is shown 50 rows a page, with a pager', async function () {
    this.timeout(600_000);
    await playChurn(server, 100);
    const first = await page(`/ui/acme/artifacts/${FA}`);
    expect(first.status).to.equal(200);
    const rows = (html: string) => (html.split('data-testid="history"')[1]!.split('</tbody>')[0]!.match(/<tr/g) ?? []).length;
    expect(rows(first.html)).to.equal(50);
    const text = textOf(first.html);
    expect(text)
      .to.match(/History \(104\)/)
      .and.contain('Page 1 of 3');
    const last = await page(`/ui/acme/artifacts/${FA}?page=3`);
    expect(rows(last.html)).to.equal(4);
    expect(textOf(last.html)).to.contain('api reported to shop/t1');
    // A page past the end shows the first (pages are forgiving, as the others are).
    expect(rows((await page(`/ui/acme/artifacts/${FA}?page=99`)).html)).to.equal(50);
  });
});
