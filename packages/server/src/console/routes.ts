/**
 * The console's pages, in the order they are matched. To add a page: write
 * `pages/<page>.tsx` exporting `definePage({ path: '/:org/...', render })` and list it here.
 */
import type { Page } from './page.ts';
import { flowPage } from './pages/flow.tsx';
import { overviewPage } from './pages/overview.tsx';
import { attachmentDownload, trailPage } from './pages/trail.tsx';

export const consolePages: readonly Page[] = [
  overviewPage,
  flowPage,
  trailPage,
  attachmentDownload,
];
