/**
 * PUT /environments/{org}/{env_name}/report/{type}: one plugin per report type, all answered by
 * the same handler (the eight differ only in the shape of a running artifact).
 *
 * A report whose set of running artifacts differs from the latest snapshot makes the next
 * snapshot (201), every fingerprint in it that was not running before is a deployment, and what
 * started, scaled or exited is stored as the snapshot's events; an unchanged report makes none
 * (200). Either way the environment's state is re-evaluated, because the trails behind what runs
 * may have gained evidence since the last report.
 */
import { reportOperations, reportTypes, type ReportType } from '@trailproof/schema';
import { TrailEvaluator } from '../domain/evaluate.ts';
import { changesBetween } from '../domain/events.ts';
import { fingerprintEvidence, runningArtifacts, sameRunning } from '../domain/running.ts';
import { badRequest, notFound } from '../http/errors.ts';
import { definePlugin, type Plugin } from '../plugin.ts';
import { environmentHref } from '../http/links.ts';
import { requireOrganization } from './lookup.ts';

type ReportOperation = (typeof reportOperations)[ReportType];

function reportPlugin(type: ReportType): Plugin<ReportOperation> {
  return definePlugin({
    operation: reportOperations[type],
    async handler({ params, data, principal, store, now, apiBase }) {
      const organization = await requireOrganization(store, params.org);
      const running = runningArtifacts(data.artifacts);
      const result = await store.transaction(async (tx) => {
        const found = await tx.findEnvironment(organization.id, params.org, params.env_name);
        if (!found) throw notFound(`Environment '${params.env_name}' not found in organization '${params.org}': create it first (PUT /environments/${params.org})`);
        // Reports to one environment take turns from here on: reading the latest snapshot and
        // writing the next index must not interleave (see lockForUpdate). Read it again once locked.
        await tx.lockForUpdate(store.dialect, 'environments', found.id);
        const environment = (await tx.findEnvironment(organization.id, params.org, params.env_name))!;
        if (environment.type !== type) {
          throw badRequest(`Environment '${params.env_name}' is of type ${environment.type}; send its reports to .../report/${environment.type}`, { type: `must be ${environment.type}` });
        }
        const latest = await tx.getSnapshot(environment.id, -1);
        // Snapshot times never go backwards along the index, even when requests were started out of order.
        const at = Math.max(now, latest?.createdAt ?? 0, environment.last_reported_at ?? 0);
        const changed = !latest || !sameRunning(latest.artifacts, running, environment.include_scaling);
        // What ran before too: an artifact that exits is linked to its trail like one that starts.
        const fingerprints = [...running, ...(changed ? latest?.artifacts ?? [] : [])].map((a) => a.fingerprint);
        const evidence = await fingerprintEvidence(tx, new TrailEvaluator(tx, at), organization.id, fingerprints);
        const state = running.every((a) => evidence.get(a.fingerprint)?.compliant === true);
        let index = latest?.index ?? 0;
        const deployed: string[] = [];
        if (changed) {
          index += 1;
          await tx.insertSnapshot(environment.id, index, running, at, principal.tokenId);
          // Fingerprints running before, and those already deployed by this report (one artifact may run under two names).
          const seen = new Set(latest?.artifacts.map((a) => a.fingerprint));
          const rows = [];
          for (const artifact of running) {
            if (seen.has(artifact.fingerprint)) continue;
            seen.add(artifact.fingerprint);
            deployed.push(artifact.fingerprint);
            const trail = evidence.get(artifact.fingerprint)?.latest;
            rows.push({
              organizationId: organization.id, environmentId: environment.id, envName: environment.name, snapshotIndex: index,
              fingerprint: artifact.fingerprint, artifactName: artifact.name, deployedAt: at,
              trailId: trail?.trailId ?? null, repoName: trail?.repoName ?? null,
            });
          }
          await tx.insertDeployments(rows);
          await tx.insertEnvironmentEvents(changesBetween(latest?.artifacts, running).map((change) => {
            const known = evidence.get(change.fingerprint);
            return {
              environmentId: environment.id, snapshotIndex: index, type: change.type, artifactName: change.name, fingerprint: change.fingerprint,
              instancesBefore: change.instancesBefore, instancesAfter: change.instancesAfter,
              trailId: known?.latest?.trailId ?? null, repoName: known?.latest?.repoName ?? null,
              artifactCompliant: known?.compliant ?? false, snapshotCompliant: state, reportedAt: at,
            };
          }));
        }
        await tx.recordReport(environment.id, { at, changed, state });
        return { index, changed, deployed };
      });
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
