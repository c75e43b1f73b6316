// @database
/**
 * The organisation's environments list over HTTP: each environment with its type, policies
 * (linked), latest snapshot, compliance and the count of non-compliant running artifacts, which is
 * the environment page's own; sorted by name and by latest snapshot both ways; never another
 * organisation's; an empty state with the call that creates one; linked from the navigation and
 * the overview.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { playEnvironmentsStory, playExtrasStory, signInTo, textOf } from '../../../../test/support/console-story.ts';

describe('console: the environments list', function () {
  this.timeout(60_000);
  let server: TestServer;
  let cookie = '';
  const page = async (path: string, as = cookie) => {
    const res = await fetch(server.url + path, { redirect: 'manual', headers: { cookie: as } });
    return { status: res.status, html: await res.text() };
  };
  /** The environment names of the list's rows, in the order shown. */
  const shown = async (query: string) => {
    const { status, html } = await page(`/ui/acme/environments${query}`);
    expect(status, query).to.equal(200);
    return [...html.matchAll(/<tr data-environment="([^"]+)">/g)].map((m) => m[1]);
  };
  /** A row's text as a person reads it. */
  const rowText = (html: string, name: string) => textOf(`<main>${new RegExp(`<tr data-environment="${name}">([\\s\\S]*?)</tr>`).exec(html)![1]}</main>`);

  /** globex's list before it had an environment. */
  let emptyList = { status: 0, html: '' };
  before(async () => {
    server = await startTestServer();
    await playExtrasStory(server);
    emptyList = await page('/ui/globex/environments', await signInTo(server, server.otherToken));
    await playEnvironmentsStory(server);
    cookie = await signInTo(server, server.readToken);
  });
  after(() => server.close());

  it('shows each environment with its type, policies, latest snapshot, compliance and non-compliant running artifacts', async () => {
    const { html } = await page('/ui/acme/environments');
    expect(textOf(html)).to.contain('3 environments.').and.not.contain('secret-env-of-globex');
    expect(rowText(html, 'prod')).to.match(/^prod K8S prod-policy \d{4}-\d\d-\d\d \d\d:\d\d UTC \(.+ ago\) ✗ NON-COMPLIANT 2 of 3 \d{4}-/);
    expect(rowText(html, 'staging')).to.match(/^staging K8S none \d{4}-\d\d-\d\d \d\d:\d\d UTC \(.+ ago\) – NO POLICY 1 of 1 \d{4}-/);
    expect(rowText(html, 'dev')).to.equal('dev docker none none yet – NOT REPORTED – never');
    expect(html)
      .to.contain('href="/ui/acme/environments/prod"')
      .and.contain('href="/ui/acme/policies/prod-policy"')
      .and.contain('href="/ui/acme/environments/prod#running"');
  });

  it("counts as the environment's own page does", async () => {
    for (const [name, count] of [
      ['prod', '2'],
      ['staging', '1'],
    ] as const) {
      const envPage = textOf((await page(`/ui/acme/environments/${name}`)).html);
      expect(envPage, name).to.match(new RegExp(`, ${count} not \\(snapshot #`));
    }
  });

  it('sorts by name and by latest snapshot, both ways, never-reported as the oldest', async () => {
    expect(await shown('')).to.deep.equal(['dev', 'prod', 'staging']);
    expect(await shown('?sort=name&sort_direction=desc')).to.deep.equal(['staging', 'prod', 'dev']);
    expect(await shown('?sort=changed')).to.deep.equal(['staging', 'prod', 'dev']);
    expect(await shown('?sort=changed&sort_direction=asc')).to.deep.equal(['dev', 'prod', 'staging']);
    expect(await shown('?sort=evil&sort_direction=sideways')).to.deep.equal(['dev', 'prod', 'staging']);
    expect(textOf((await page('/ui/acme/environments?sort=changed')).html)).to.contain('Latest snapshot ▼ descending');
  });

  it('pages the list', async () => {
    expect(await shown('?per_page=2')).to.deep.equal(['dev', 'prod']);
    expect(await shown('?per_page=2&page=2')).to.deep.equal(['staging']);
    expect(await shown('?per_page=2&page=9')).to.deep.equal([]);
    expect(textOf((await page('/ui/acme/environments?per_page=2')).html)).to.contain('Page 1 of 2 (3 in all) Next →');
  });

  it('is linked from the navigation and the overview', async () => {
    const overview = await page('/ui/acme');
    expect(overview.html).to.contain('<a href="/ui/acme/environments">Environments</a>');
    expect(textOf(overview.html)).to.contain('All 3 environments with their policies and compliance →');
  });

  it('an organisation without environments sees the call that creates one; another organisation’s list is a 404', async () => {
    expect(emptyList.status).to.equal(200);
    const text = textOf(emptyList.html);
    expect(text).to.contain('No environments yet.').and.contain('kosli create environment production --type K8S');
    expect(text).to.contain(`curl -X PUT "${server.url}/api/v2/environments/globex"`).and.not.contain('staging');
    expect((await page('/ui/globex/environments')).status).to.equal(404);
  });
});
