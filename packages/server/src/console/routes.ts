/**
 * The console's pages, in the order they are matched. To add a page: write
 * `pages/<page>.tsx` exporting `definePage({ path: '/:org/...', render })` and list it here.
 */
import type { Page } from './page.ts';
import { flowPage } from './pages/flow.tsx';
import { overviewPage } from './pages/overview.tsx';
import { attachmentDownload, trailPage } from './pages/trail.tsx';
import { environmentPage } from './pages/environment.tsx';
import { environmentsPage } from './pages/environments.tsx';
import { deploymentsPage } from './pages/deployments.tsx';
import { approvalPage, approvalsPage } from './pages/approvals.tsx';
import { integrityPage } from './pages/integrity.tsx';
import { artifactPage, flowArtifactPage } from './pages/artifact.tsx';
import { searchPage } from './pages/search.tsx';
import { policiesPage, policyPage } from './pages/policies.tsx';
import { verdictPage, verdictsPage } from './pages/verdicts.tsx';
import { logEntryPage } from './pages/log-entry.tsx';
import { peoplePage } from './pages/people.tsx';
import { trailsPage } from './pages/trails.tsx';
import { auditPackageDownload, checkpointDownload } from './pages/evidence-downloads.tsx';

export const consolePages: readonly Page[] = [
  overviewPage,
  flowPage,
  trailPage,
  attachmentDownload,
  environmentPage,
  environmentsPage,
  deploymentsPage,
  approvalsPage,
  approvalPage,
  integrityPage,
  artifactPage,
  flowArtifactPage,
  searchPage,
  policiesPage,
  policyPage,
  verdictsPage,
  verdictPage,
  peoplePage,
  trailsPage,
  // Before /:org/log/:index, which would take "checkpoint" and "audit-package" for an index: the first path that matches answers.
  checkpointDownload,
  auditPackageDownload,
  logEntryPage,
];
