// @database
/**
 * The environment, deployments, approvals and integrity pages in a real browser (Debian's
 * Chromium driven by playwright-core), on the story of test/support/console-story.ts: a person
 * signs in with the keyboard, opens what runs in prod and reads each artifact's compliance,
 * filters the deployments, reads an approval's reviews and runs the integrity check, by clicking.
 */
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { playExtrasStory, sha } from '../../../../test/support/console-story.ts';

const chromiumPath = process.env.TRAILPROOF_CHROMIUM ?? '/usr/bin/chromium';

describe('console pages in a browser: environment, deployments, approvals, integrity', function () {
  this.timeout(180_000);
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  const documents: Array<{ url: string; csp: string | null }> = [];

  before(async () => {
    server = await startTestServer();
    await playExtrasStory(server);
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    page = await browser.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('response', (res) => {
      if (res.request().resourceType() === 'document') documents.push({ url: res.url(), csp: res.headers()['content-security-policy'] ?? null });
    });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const main = () => page.innerText('main');
  /** Nothing hostile became markup: no script, no injected image, no handler attribute, no javascript: link. */
  const assertInert = async () => {
    const found = await page.evaluate(() => ({
      // The console's own script (copy buttons) is the one allowed.
      scripts: Array.from(document.querySelectorAll('script')).filter((s) => !/\/ui\/static\/console\.js\?v=[0-9a-f]{12}$/.test(s.src)).length,
      images: document.querySelectorAll('img').length,
      handlers: Array.from(document.querySelectorAll('*')).flatMap((e) =>
        Array.from(e.attributes)
          .filter((a) => a.name.startsWith('on'))
          .map((a) => `${e.tagName} ${a.name}`),
      ),
      jsLinks: Array.from(document.querySelectorAll('a')).filter((a) => a.href.startsWith('javascript:')).length,
    }));
    expect(found, page.url()).to.deep.equal({ scripts: 0, images: 0, handlers: [], jsLinks: 0 });
  };

  it('signs in with the keyboard and shows what runs in prod: each artifact, its fingerprint and compliance, the trail and approval behind it', async () => {
    await page.goto(`${server.url}/ui/acme/environments/prod`);
    expect(new URL(page.url()).pathname).to.equal('/ui/sign-in');
    await page.focus('#token');
    await page.keyboard.type(server.readToken);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/ui/acme/environments/prod');
    expect(await page.innerText('h1'))
      .to.contain('prod')
      .and.contain('NON-COMPLIANT');
    expect(await page.innerText('[data-testid=running-summary]')).to.match(/^prod: 3 artifacts running, 1 attested by a compliant trail, 2 not \(snapshot #2/);
    const row = (name: string) => page.innerText(`tr[data-artifact="${name}"]`);
    expect(await row('api'))
      .to.contain(sha('api:1'))
      .and.contain('✓ ATTESTED BY A COMPLIANT TRAIL')
      .and.contain('app/b1')
      .and.contain('app #1 (approved)');
    expect(await row('web'))
      .to.contain(sha('web:1'))
      .and.contain('✗ NO COMPLIANT TRAIL')
      .and.contain('app/b2');
    expect(await row('db')).to.contain('✗ NOT ATTESTED');
    expect(await page.getAttribute('tr[data-artifact="api"] a[href*="/trails/"]', 'href')).to.equal('/ui/acme/flows/app/trails/b1');
    // The timeline, newest first (within a snapshot, the reverse of artifact order): db started at #2, web and api at #1.
    const events = await page.locator('tr.event-started').allInnerTexts();
    expect(events.map((row) => row.split('\t')[0] + ' ' + row.split('\t')[3])).to.deep.equal(['#2 db', '#1 web', '#1 api']);
    await assertInert();

    await page.click('tr.event-started a[href$="?snapshot=1"] >> nth=0');
    expect(await main())
      .to.contain('Running at snapshot #1')
      .and.contain('prod: 2 artifacts running, 1 attested by a compliant trail, 1 not');
  });

  it('follows the approval of a running artifact to every review, written as text', async () => {
    await page.goto(`${server.url}/ui/acme/environments/prod`);
    await page.click('tr[data-artifact="api"] >> text=app #1 (approved)');
    await page.waitForURL('**/ui/acme/flows/app/approvals/1');
    const text = await main();
    expect(text).to.contain('Approval #1 of app').and.contain('✓ APPROVED').and.contain('Reviews (2)');
    expect(await page.locator('table.reviews tbody tr').count()).to.equal(2);
    expect(text).to.contain('alice: <script>alert(1)</script>').and.contain('bob: <script>alert(1)</script>');
    await assertInert();
    await page.click('text=approvals');
    expect(await main()).to.match(/#1\s+✓ APPROVED\s+api/);
  });

  it('filters the deployments by environment through the form, with the chart per day and links to snapshots and trails', async () => {
    await page.click('header >> text=Deployments');
    expect(await page.innerText('[data-testid=deployments-summary]')).to.match(/^4 deployments from /);
    expect(await page.getAttribute('figure.chart svg', 'role')).to.equal('img');
    expect(await page.innerText('figure.chart figcaption')).to.contain('4 deployments in 29 days');
    await page.fill('input[name=env_name]', 'prod');
    await page.press('input[name=env_name]', 'Enter');
    await page.waitForURL(/env_name=prod/);
    expect(await page.innerText('[data-testid=deployments-summary]')).to.match(/^3 deployments to prod from /);
    const rows = await page.locator('table.deployments tbody tr').allInnerTexts();
    expect(rows).to.have.length(3);
    expect(rows.every((row) => row.includes('prod'))).to.equal(true);
    expect(rows.join('\n')).to.contain('app/b1').and.contain('app/b2').and.contain('no trail attested it');
    await page.click('table.deployments >> text=#2');
    expect(await main()).to.contain('prod: 3 artifacts running');
  });

  it('runs the integrity check on request and says the evidence is intact', async () => {
    await page.click('header >> text=Integrity');
    expect(await main()).to.contain('Run the check now');
    await page.click('text=Run the check now');
    await page.waitForURL(/run=1/);
    expect(await page.innerText('[data-testid=integrity-result]')).to.match(/^The evidence of acme is intact: \d+ chain records checked/);
  });

  it('sent the Content-Security-Policy with every page, and no dialog opened', () => {
    expect(documents.length).to.be.greaterThan(6);
    for (const document of documents) expect(document.csp, document.url).to.contain("script-src 'self'").and.contain("frame-ancestors 'none'");
    expect(dialogs).to.deep.equal([]);
  });
});
