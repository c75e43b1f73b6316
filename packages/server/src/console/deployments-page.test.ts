// @database
/**
 * The deployments page over HTTP: each row's approval (approved and linked, or not approved, with
 * a pending request linked), and the compliance filter, kept in the URL and counted by the pager
 * (the browser checks the column at a phone's width in team-views.browser.test.ts).
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { playExtrasStory, sha, signInTo, textOf } from '../../../../test/support/console-story.ts';

describe('console: the deployments page’s approvals and compliance filter', function () {
  this.timeout(60_000);
  let server: TestServer;
  let cookie = '';
  const page = async (path: string) => {
    const res = await fetch(server.url + path, { redirect: 'manual', headers: { cookie } });
    return { status: res.status, html: await res.text() };
  };
  /** The table's rows as text, without their times, newest first. */
  const rowsOf = (html: string) =>
    [...(html.match(/<table class="deployments">[\s\S]*?<\/table>/)?.[0] ?? '').matchAll(/<tr>[\s\S]*?<\/tr>/g)]
      .map((m) => textOf(m[0]))
      .filter((row) => !row.startsWith('Deployed'))
      .map((row) => row.replace(/^.*\(.*? ago\) /, ''));
  before(async () => {
    server = await startTestServer();
    await playExtrasStory(server);
    // A request for web:1 in staging, not reviewed: pending.
    const res = await server.request('POST', '/api/v2/approvals/acme/app', {
      json: { artifact_fingerprint: sha('web:1'), description: 'release 2', src_commit_list: [], environment: 'staging' },
    });
    expect(res.status).to.equal(201);
    cookie = await signInTo(server, server.readToken);
  });
  after(() => server.close());

  it('shows for each deployment whether an approval of its artifact for its environment (or any) approved it, linked to that approval', async () => {
    const { status, html } = await page('/ui/acme/deployments');
    expect(status).to.equal(200);
    expect(html).to.contain('<th scope="col">Approval</th>');
    expect(rowsOf(html)).to.deep.equal([
      `web ${sha('web:1').slice(0, 12)} staging #1 app/b2 ✗ NON-COMPLIANT not approved: app #2 (pending)`,
      `db ${sha('db:1').slice(0, 12)} prod #2 no trail attested it ✗ NON-COMPLIANT not approved`,
      // The pending request is for staging: it does not cover prod.
      `web ${sha('web:1').slice(0, 12)} prod #1 app/b2 ✗ NON-COMPLIANT not approved`,
      `api ${sha('api:1').slice(0, 12)} prod #1 app/b1 ✓ COMPLIANT approved: app #1`,
    ]);
    expect(html).to.contain('<a href="/ui/acme/flows/app/approvals/1">app #1</a>').and.contain('<a href="/ui/acme/flows/app/approvals/2">app #2</a>');
    expect((await page('/ui/acme/flows/app/approvals/1')).status).to.equal(200);
  });

  it('filters by compliance when deployed in the query, the total and the pages counted under the filter', async () => {
    const compliant = await page('/ui/acme/deployments?compliance=compliant');
    expect(textOf(compliant.html)).to.contain('1 deployment compliant when deployed from');
    expect(rowsOf(compliant.html)).to.deep.equal([`api ${sha('api:1').slice(0, 12)} prod #1 app/b1 ✓ COMPLIANT approved: app #1`]);
    expect(compliant.html).to.contain('<option value="compliant" selected>');

    const first = await page('/ui/acme/deployments?compliance=non-compliant&per_page=2');
    const text = textOf(first.html);
    expect(text).to.contain('3 deployments non-compliant when deployed from').and.contain('Page 1 of 2 (3 in all)');
    expect(rowsOf(first.html).map((r) => r.split(' ').slice(0, 3).join(' '))).to.deep.equal([
      `web ${sha('web:1').slice(0, 12)} staging`,
      `db ${sha('db:1').slice(0, 12)} prod`,
    ]);
    expect(first.html).to.contain('<option value="non-compliant" selected>');
    expect(first.html).to.contain('href="/ui/acme/deployments?compliance=non-compliant&amp;per_page=2&amp;page=2"');
    const second = await page('/ui/acme/deployments?compliance=non-compliant&per_page=2&page=2');
    expect(rowsOf(second.html)).to.deep.equal([`web ${sha('web:1').slice(0, 12)} prod #1 app/b2 ✗ NON-COMPLIANT not approved`]);

    const together = textOf((await page('/ui/acme/deployments?compliance=non-compliant&env_name=prod')).html);
    expect(together).to.contain('2 deployments non-compliant when deployed to prod from');
    // An unknown value is no filter, as an empty one is.
    expect(textOf((await page('/ui/acme/deployments?compliance=maybe')).html)).to.contain('4 deployments from');
    expect(textOf((await page('/ui/acme/deployments?compliance=')).html)).to.contain('4 deployments from');
  });
});
