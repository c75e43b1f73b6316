/** What the console's browser tests share: a signed-in page that records dialogs, and the check that nothing hostile became markup. */
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';

/** A page of `context` signed in with `token`, each dialog (an alert that ran) dismissed and kept in `dialogs`. */
export async function signedInPage(context: BrowserContext, url: string, token: string, dialogs: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`${url}/ui/sign-in`);
  await page.fill('#token', token);
  await Promise.all([page.waitForURL('**/ui/acme'), page.press('#token', 'Enter')]);
  return page;
}

/** Nothing hostile became markup: no script but the console's own, no image, no handler attribute, no javascript: link. */
export async function assertInert(page: Page): Promise<void> {
  const found = await page.evaluate(() => ({
    scripts: Array.from(document.querySelectorAll('script')).filter((s) => !/\/ui\/static\/console\.js\?v=[0-9a-f]{12}$/.test(s.src)).length,
    images: document.querySelectorAll('img').length,
    handlers: Array.from(document.querySelectorAll('*')).flatMap((e) =>
      Array.from(e.attributes)
        .filter((a) => a.name.startsWith('on'))
        .map((a) => `${e.tagName} ${a.name}`),
    ),
    jsLinks: Array.from(document.querySelectorAll('a')).filter((a) => /^\s*javascript:/i.test(a.getAttribute('href') ?? '')).length,
  }));
  expect(found, page.url()).to.deep.equal({ scripts: 0, images: 0, handlers: [], jsLinks: 0 });
}
