/** The default plugins: the six operations of SPEC.md. */
import type { Plugin } from '../plugin.ts';
import { attestJunitPlugin } from './attest-junit.ts';
import { beginTrailPlugin } from './begin-trail.ts';
import { getApprovalPlugin } from './get-approval.ts';
import { listApprovalsPlugin } from './list-approvals.ts';
import { listDeploymentsPlugin } from './list-deployments.ts';
import { listEnvironmentsPlugin } from './list-environments.ts';

export { attestJunitPlugin, beginTrailPlugin, getApprovalPlugin, listApprovalsPlugin, listDeploymentsPlugin, listEnvironmentsPlugin };

export const defaultPlugins: readonly Plugin<any>[] = [
  attestJunitPlugin, beginTrailPlugin, listEnvironmentsPlugin, listApprovalsPlugin, getApprovalPlugin, listDeploymentsPlugin,
];
