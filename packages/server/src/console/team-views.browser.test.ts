// @database
/**
 * The console for a team in a real browser (Debian's Chromium driven by playwright-core): every
 * page at a phone's width (390 px) and a desktop's, in light and dark schemes, is as wide as the
 * window (tables scroll inside their box, the navigation stays one line), passes axe-core's
 * checks (landmarks, labels, names, contrast in both schemes), and is worked with the keyboard;
 * the trails view is filtered by clicking, and its filters land in the address; the environments
 * list keeps its table in its box on a phone and its badges in the dark scheme's colours.
 */
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { playEnvironmentsStory, playExtrasStory, signInTo } from '../../../../test/support/console-story.ts';
import { playTeamStory } from '../../../../test/support/team-story.ts';

const chromiumPath = process.env.TRAILPROOF_CHROMIUM ?? '/usr/bin/chromium';
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** The pages a team reads most, each at both widths and in both schemes. */
const pages = [
  '/ui/acme',
  '/ui/acme/trails?compliance=non-compliant',
  '/ui/acme/flows/app/trails/a2',
  '/ui/acme/deployments',
  '/ui/acme/environments',
  '/ui/acme/environments/prod',
  '/ui/acme/integrity',
];
const widths = [390, 1280] as const;
const schemes = ['light', 'dark'] as const;
/** axe runs in two of the four: each scheme (contrast) and each width once, which keeps the file's CPU within CI's budget. */
const checkedByAxe = (width: number, scheme: string) => (width === 390) === (scheme === 'light');

describe('console for a team in a browser: phones, dark mode, accessibility, the trails view', function () {
  this.timeout(240_000);
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shots = mkdtempSync(join(tmpdir(), 'trailproof-shots-'));

  before(async () => {
    server = await startTestServer();
    await playExtrasStory(server);
    await playEnvironmentsStory(server);
    await playTeamStory(server);
    const cookie = (await signInTo(server, server.readToken)).split('=');
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    // axe is injected as a script of the test's own: the console's Content-Security-Policy would refuse it.
    context = await browser.newContext({ bypassCSP: true });
    await context.addCookies([{ name: cookie[0]!, value: cookie.slice(1).join('='), url: server.url }]);
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    rmSync(shots, { recursive: true, force: true });
  });

  /** axe-core's violations on the page as it is shown: rule, and the first element's selector. */
  const axeViolations = async () => {
    await page.addScriptTag({ path: axePath });
    return page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: { run(context: Document, options: object): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown[] }> }> }> };
        }
      ).axe;
      const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'best-practice'] } });
      return result.violations.map((v) => `${v.id}: ${v.nodes.length} (${JSON.stringify(v.nodes[0]?.target)})`);
    });
  };

  for (const colorScheme of schemes)
    for (const width of widths)
      it(`at ${width} px in the ${colorScheme} scheme: no page is wider than the window, the navigation is one line${checkedByAxe(width, colorScheme) ? ', axe finds nothing' : ''}`, async () => {
        await page.setViewportSize({ width, height: 800 });
        await page.emulateMedia({ colorScheme });
        for (const path of pages) {
          await page.goto(server.url + path);
          const measured = await page.evaluate(() => ({
            page: document.documentElement.scrollWidth,
            window: window.innerWidth,
            navLines: (() => {
              const links = Array.from(document.querySelectorAll('header nav a')).map((a) => a.getBoundingClientRect().top);
              return new Set(links.map(Math.round)).size;
            })(),
            background: getComputedStyle(document.body).backgroundColor,
          }));
          expect(measured.page, `${path} is ${measured.page} px wide in a ${width} px window`).to.be.at.most(measured.window);
          expect(measured.navLines, path).to.equal(1);
          expect(measured.background, path).to.equal(colorScheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)');
          if (checkedByAxe(width, colorScheme)) expect(await axeViolations(), `${path} at ${width} px, ${colorScheme}`).to.deep.equal([]);
        }
        const shot = join(shots, `trails-${width}-${colorScheme}.png`);
        await page.goto(`${server.url}/ui/acme/trails`);
        await page.screenshot({ path: shot, fullPage: true });
        expect(statSync(shot).size).to.be.greaterThan(5_000);
      });

  it('at 390 px every table ends inside the window: it fits, or scrolls inside a box the keyboard can reach', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    for (const path of pages) {
      await page.goto(server.url + path);
      const tables = await page.$$eval('main table', (all) =>
        all.map((table) => {
          const scroller = (table.closest('.table-box') as HTMLElement | null) ?? (table as HTMLElement);
          const scrolls = scroller.scrollWidth > scroller.clientWidth;
          // As axe judges it: a box that scrolls is reached when it or something inside it takes focus.
          const focusable = scroller.tabIndex >= 0 || scroller.querySelector('a[href], button, input, select') !== null;
          return { right: scroller.getBoundingClientRect().right, scrolls, reachable: !scrolls || focusable };
        }),
      );
      for (const t of tables) expect(t, path).to.deep.include({ reachable: true }).and.have.property('right').at.most(390);
    }
  });

  it('the environments list at 390 px and 1,280 px, light and dark: its table in the window, its badges in the scheme’s colours', async () => {
    const badBadge = { light: 'rgb(164, 14, 38)', dark: 'rgb(255, 142, 142)' } as const;
    for (const colorScheme of schemes)
      for (const width of widths) {
        await page.setViewportSize({ width, height: 800 });
        await page.emulateMedia({ colorScheme });
        await page.goto(`${server.url}/ui/acme/environments`);
        const seen = await page.$eval('#org-environments', (table) => {
          const box = table.closest('.table-box') as HTMLElement;
          const badge = table.querySelector('tr[data-environment="prod"] .badge.bad') as HTMLElement;
          return {
            right: box.getBoundingClientRect().right,
            reachable: box.scrollWidth <= box.clientWidth || box.tabIndex >= 0,
            page: document.documentElement.scrollWidth,
            badge: getComputedStyle(badge).color,
            rows: table.querySelectorAll('tbody tr').length,
          };
        });
        const at = `${width} px, ${colorScheme}`;
        expect(seen.right, at).to.be.at.most(width);
        expect(seen.page, at).to.be.at.most(width);
        expect(seen, at).to.deep.include({ reachable: true, rows: 3, badge: badBadge[colorScheme] });
        const shot = join(shots, `environments-${width}-${colorScheme}.png`);
        await page.screenshot({ path: shot, fullPage: true });
        expect(statSync(shot).size).to.be.greaterThan(5_000);
      }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('the keyboard reaches the navigation, the search box, every filter and the sort headers, in that order', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/ui/acme/trails`);
    const reached: string[] = [];
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      reached.push(
        await page.evaluate(() => {
          const e = document.activeElement as HTMLElement | null;
          return e ? `${e.tagName.toLowerCase()}:${e.getAttribute('name') ?? e.textContent?.trim().slice(0, 20)}` : '';
        }),
      );
    }
    const at = (what: string) => reached.indexOf(what);
    for (const what of [
      'a:Trails',
      'a:Deployments',
      'input:q',
      'select:compliance',
      'input:flow',
      'input:branch',
      'input:commit',
      'input:from',
      'input:until',
      'button:Show trails',
    ])
      expect(at(what), `${what} in ${reached.join(' ')}`).to.be.at.least(0);
    expect(at('a:Trails')).to.be.lessThan(at('input:q'));
    expect(at('input:q')).to.be.lessThan(at('select:compliance'));
    expect(reached.some((r) => r.startsWith('a:Trail'))).to.equal(true);
  });

  it('filters the trails view by clicking: non-compliant only on main, sorted by name, every filter in the address', async () => {
    await page.goto(`${server.url}/ui/acme/trails`);
    await page.selectOption('select[name=compliance]', 'non-compliant');
    await page.fill('input[name=branch]', 'main');
    await page.click('button:has-text("Show trails")');
    await page.waitForURL('**/ui/acme/trails?**');
    const url = new URL(page.url());
    expect(url.searchParams.get('compliance')).to.equal('non-compliant');
    expect(url.searchParams.get('branch')).to.equal('main');
    await page.click('#org-trails th a:has-text("Trail")');
    await page.waitForURL(/sort=name/);
    const names = await page.$$eval('#org-trails tbody tr td:first-child', (cells) => cells.map((c) => (c as HTMLElement).innerText));
    expect(names).to.deep.equal(['a2', 'w1']);
    expect(new URL(page.url()).searchParams.get('branch')).to.equal('main');
  });

  it('at 390 px the deployments table shows each approval, reached inside its box, and filters by compliance in the address', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${server.url}/ui/acme/deployments`);
    const headers = await page.$$eval('table.deployments thead th', (cells) => cells.map((c) => (c as HTMLElement).innerText.trim()));
    expect(headers.at(-1)).to.equal('Approval');
    const approvals = await page.$$eval('table.deployments tbody tr td:last-child', (cells) => cells.map((c) => (c as HTMLElement).innerText.trim()));
    expect(approvals).to.deep.equal(['not approved', 'not approved', 'not approved', 'approved: app #1']);
    const link = page.locator('table.deployments tbody tr td:last-child a');
    await link.scrollIntoViewIfNeeded();
    // Scrolled to inside the table's own box: the cell is on the screen, the page no wider than it.
    const box = await link.boundingBox();
    expect(box!.x + box!.width).to.be.at.most(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390);
    await page.screenshot({ path: join(shots, 'deployments-approvals-390.png') });
    await link.click();
    await page.waitForURL('**/ui/acme/flows/app/approvals/1');

    await page.goto(`${server.url}/ui/acme/deployments`);
    await page.selectOption('select[name=compliance]', 'compliant');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/compliance=compliant/);
    expect(await page.innerText('[data-testid=deployments-summary]')).to.match(/^1 deployment compliant when deployed from /);
    expect(await page.locator('table.deployments tbody tr').count()).to.equal(1);
  });
});
