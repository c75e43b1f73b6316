/**
 * PUT /environments/{org}/{env_name}/report/{type}: one plugin per report type, all answered by
 * the same handler (the eight differ only in the shape of a running artifact). A report that
 * changed what runs makes a snapshot (201), an unchanged one none (200): see
 * domain/environment-report.ts.
 */
import { reportOperations, reportTypes, type ReportType } from '@trailproof/schema';
import { applyEnvironmentReport, applyEnvironmentReportUses } from '../domain/environment-report.ts';
import { runningArtifacts } from '../domain/running.ts';
import { badRequest, notFound } from '../http/errors.ts';
import { definePlugin, type Plugin } from '../plugin.ts';
import { environmentHref } from '../http/links.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';
import { nextTurn } from '../support/turns.ts';

type ReportOperation = (typeof reportOperations)[ReportType];

function reportPlugin(type: ReportType): Plugin<ReportOperation> {
  return definePlugin({
    operation: reportOperations[type],
    store: [...requireOrganizationUses, ...applyEnvironmentReportUses.store],
    transaction: applyEnvironmentReportUses.transaction,
    async handler({ params, data, principal, store, now, apiBase }) {
      const organization = await requireOrganization(store, params.org);
      const running = runningArtifacts(data.artifacts);
      // Grouping 5,000 artifacts takes tens of ms, as does each step of the transaction after it.
      await nextTurn();
      const result = await applyEnvironmentReport(store, {
        organizationId: organization.id,
        orgName: params.org,
        envName: params.env_name,
        type,
        running,
        tokenId: principal.tokenId,
        now,
      });
      if (result.outcome === 'no-environment') {
        throw notFound(`Environment '${params.env_name}' not found in organization '${params.org}': create it first (PUT /environments/${params.org})`);
      }
      if (result.outcome === 'wrong-type') {
        throw badRequest(`Environment '${params.env_name}' is of type ${result.type}; send its reports to .../report/${result.type}`, {
          type: `must be ${result.type}`,
        });
      }
      const body = {
        snapshot_index: result.index,
        changed: result.changed,
        deployed: result.deployed,
        _links: { snapshot: { href: `${environmentHref({ org: params.org, apiBase }, params.env_name)}/snapshots/${result.index}` } },
      };
      return result.changed ? { status: 201, body } : { status: 200, body };
    },
  });
}

/** The eight report plugins (server, docker, K8S, ECS, S3, lambda, azure-apps, cloud-run). */
export const environmentReportPlugins: readonly Plugin<ReportOperation>[] = reportTypes.map(reportPlugin);
