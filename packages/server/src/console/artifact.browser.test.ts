// @database
/**
 * The artifact page and the search box in a real browser (Debian's Chromium driven by
 * playwright-core), on the story of test/support/artifact-story.ts: a person searches a prefix of
 * a fingerprint from the header, lands on the artifact, reads why it is not compliant and where it
 * runs, copies its fingerprint, searches a commit with two artifacts and opens one, and follows
 * the links from an environment and a trail. Hostile names stay text; RTL overrides stay isolated.
 */
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { assertInert as assertPageInert } from '../../../../test/support/browser-checks.ts';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { signedInPage } from './browser-fixture.ts';
import { C1, CL, FA, FL, FW, FX, apiName, longFlow, playArtifactStory } from '../../../../test/support/artifact-story.ts';

const chromiumPath = process.env.TRAILPROOF_CHROMIUM ?? '/usr/bin/chromium';

describe('the artifact page and search in a browser', function () {
  this.timeout(180_000);
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const dialogs: string[] = [];

  before(async () => {
    server = await startTestServer();
    await playArtifactStory(server);
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await signedInPage(context, server.url, server.readToken, dialogs);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const assertInert = () => assertPageInert(page);

  it('searches a fingerprint prefix from the header and lands on the artifact: what it is, why it is not compliant, where it runs', async () => {
    await page.fill('header #search', FA.slice(0, 9));
    await Promise.all([page.waitForURL(`**/ui/acme/artifacts/${FA}`), page.press('header #search', 'Enter')]);
    expect(await page.innerText('h1'))
      .to.contain('api')
      .and.contain('NON-COMPLIANT');
    expect(await page.innerText('[data-testid=fingerprint]')).to.equal(FA);
    const main = await page.innerText('main');
    expect(main).to.contain(apiName).and.contain(C1);
    expect(main).to.contain('Not compliant: rule .critical == 0 is false');
    // The pull request is the trail's, not the artifact's: its view is on the trail page (below).
    expect(await page.innerText('article[data-attestation="scan"]'))
      .to.contain('judged by version 1')
      .and.contain('✗ false');
    expect(await page.innerText('tr[data-environment="prod"]'))
      .to.contain('running')
      .and.contain('#1');
    expect(await page.innerText('tr[data-environment="staging"]')).to.contain('exited');
    // The hostile name is one text node: the script and image did not run or appear; the RTL override stays inside its <bdi>.
    expect(await page.locator('h2#what ~ dl bdi').first().innerText()).to.equal(apiName);
    await assertInert();
    expect(dialogs).to.deep.equal([]);
  });

  it('copies the fingerprint with its button', async () => {
    await page.click('[data-testid=fingerprint] + button.copy');
    await page.waitForSelector('[data-testid=fingerprint] + button.copy:text("Copied")');
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(FA);
  });

  it('follows the trail link and reads the pull request as a person does: link, author, approvers, merge commit', async () => {
    await Promise.all([page.waitForURL('**/ui/acme/flows/shop/trails/t1'), page.click('[data-testid=trail-link]')]);
    const pr = await page.innerText('li.pull-request');
    expect(pr).to.contain('Add checkout <script>alert(1)</script>').and.contain('MERGED');
    expect(pr).to.contain('Author: alice "><img src=x onerror=alert(1)>').and.contain('Approvers: bob, carol <script>alert(1)</script> (approved)');
    expect(pr).to.contain(`Merge commit: ${C1.slice(0, 12)}`);
    expect(await page.getAttribute('li.pull-request a', 'href')).to.equal('https://github.com/acme/shop/pull/7');
    // The trail's artifacts, each linked to its page.
    expect(await page.getAttribute('#artifacts ~ table tr[data-artifact="web"] a', 'href')).to.equal(`/ui/acme/flows/shop/artifacts/${FW}`);
    await assertInert();
  });

  it('searches a commit with two artifacts: both listed, one opened', async () => {
    await page.fill('header #search', C1);
    await Promise.all([page.waitForURL('**/ui/acme/search?q=*'), page.press('header #search', 'Enter')]);
    expect(await page.innerText('[data-testid=matches]')).to.contain('2 artifacts match');
    await Promise.all([page.waitForURL(`**/ui/acme/flows/shop/artifacts/${FW}`), page.click(`main a[href="/ui/acme/flows/shop/artifacts/${FW}"]`)]);
    expect(await page.innerText('h1')).to.contain('web');
    await assertInert();
  });

  it('says so when nothing matches, and refuses what is not a SHA without running it', async () => {
    await page.fill('header #search', 'abcdef0');
    await Promise.all([page.waitForURL('**/ui/acme/search?q=abcdef0'), page.press('header #search', 'Enter')]);
    expect(await page.innerText('[data-testid=no-match]')).to.contain('No artifact of acme');
    // The box takes 64 characters; a longer query in the address is cut when shown.
    await page.goto(`${server.url}/ui/acme/search?q=${encodeURIComponent(`<script>alert(1)</script>${'z'.repeat(5_000)}`)}`);
    expect(await page.innerText('[role=alert]')).to.contain('7 to 64 hexadecimal characters');
    expect(await page.inputValue('main input[name=q]')).to.have.length(64);
    await assertInert();
    expect(dialogs).to.deep.equal([]);
  });

  it('keeps an artifact of the longest names and a 256-character name within the window', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    for (const path of [`/ui/acme/artifacts/${FA}`, `/ui/acme/flows/${longFlow}/artifacts/${FL}`]) {
      await page.goto(server.url + path);
      const wide = await page.evaluate(() =>
        Array.from(document.querySelectorAll('main *'))
          .filter((e) => e.getBoundingClientRect().right > 1280)
          .map((e) => `${e.tagName}.${e.className}`)
          .slice(0, 8),
      );
      expect(wide, path).to.deep.equal([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).to.be.at.most(1280);
      await assertInert();
    }
    expect(await page.innerText('main'))
      .to.contain(longFlow)
      .and.contain(CL.slice(0, 7));
  });

  it("links from an environment's running artifacts to their pages, reported or not", async () => {
    await page.goto(`${server.url}/ui/acme/environments/prod`);
    await Promise.all([page.waitForURL(`**/ui/acme/artifacts/${FX}`), page.click(`tr[data-artifact="rogue"] a[href$="${FX}"]`)]);
    expect(await page.innerText('main')).to.contain('No flow reported this artifact');
    await assertInert();
  });
});
