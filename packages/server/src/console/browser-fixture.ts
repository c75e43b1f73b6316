/** What the console's browser tests share: a signed-in page that records dialogs, and the check that nothing hostile became markup. */
import type { BrowserContext, Page } from 'playwright-core';

export { assertInert } from '../../../../test/support/browser-checks.ts';

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
