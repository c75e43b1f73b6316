/**
 * What the console's browser tests check on every page they open: that nothing hostile in the
 * evidence became markup, and which documents came with which Content-Security-Policy and
 * whether a dialog opened (there must be none).
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';

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

/** Records every dialog (dismissed) and every document's Content-Security-Policy header of `page`. */
export function watchPage(page: Page): { dialogs: string[]; documents: Array<{ url: string; csp: string | null }> } {
  const seen = { dialogs: [] as string[], documents: [] as Array<{ url: string; csp: string | null }> };
  page.on('dialog', (dialog) => {
    seen.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('response', (res) => {
    if (res.request().resourceType() === 'document') seen.documents.push({ url: res.url(), csp: res.headers()['content-security-policy'] ?? null });
  });
  return seen;
}
