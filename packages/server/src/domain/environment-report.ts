/**
 * An environment's report, applied: a report whose set of running artifacts differs from the
 * latest snapshot makes the next snapshot, every fingerprint in it that was not running before is
 * a deployment, and what started, scaled or exited is stored as the snapshot's events; an
 * unchanged report makes none. Either way the environment's state is re-evaluated, because the
 * trails behind what runs may have gained evidence since the last report; with policies
 * attached, each running artifact's verdict is recorded (once per distinct verdict). One transaction.
 */
import type { RunningArtifact, StorePart } from '../store/types.ts';
import { TrailEvaluator, trailEvaluatorUses } from './evaluate.ts';
import { changesBetween } from './events.ts';
import { sameRunning } from './running.ts';
import { judgeRunning, judgeRunningUses, verdictInputs } from './snapshot-judgement.ts';
import { nextTurn } from '../support/turns.ts';

/** What `applyEnvironmentReport` uses of the store, for its plugins' declarations. */
export const applyEnvironmentReportUses = {
  store: ['dialect'],
  transaction: [
    'findEnvironment',
    'lockForUpdate',
    'getSnapshot',
    'insertSnapshot',
    'insertDeployments',
    'insertEnvironmentEvents',
    'recordReport',
    'recordVerdicts',
    ...judgeRunningUses,
    ...trailEvaluatorUses,
  ],
} as const;
type ReportStore = StorePart<(typeof applyEnvironmentReportUses.store)[number], (typeof applyEnvironmentReportUses.transaction)[number]>;

export interface EnvironmentReport {
  organizationId: number;
  orgName: string;
  envName: string;
  /** The report type it was sent as; an environment takes reports of its own type only. */
  type: string;
  running: RunningArtifact[];
  /** The reporting token's id, named in the snapshot's chain record. */
  tokenId: string | null;
  now: number;
}

export type ReportOutcome =
  | { outcome: 'recorded'; index: number; changed: boolean; deployed: string[] }
  | { outcome: 'no-environment' }
  | { outcome: 'wrong-type'; type: string };

export function applyEnvironmentReport(store: ReportStore, report: EnvironmentReport): Promise<ReportOutcome> {
  return store.transaction(async (tx): Promise<ReportOutcome> => {
    const found = await tx.findEnvironment(report.organizationId, report.orgName, report.envName);
    if (!found) return { outcome: 'no-environment' };
    // Reports to one environment take turns from here on: reading the latest snapshot and
    // writing the next index must not interleave (see lockForUpdate). Read it again once locked.
    await tx.lockForUpdate(store.dialect, 'environments', found.id);
    const environment = (await tx.findEnvironment(report.organizationId, report.orgName, report.envName))!;
    if (environment.type !== report.type) return { outcome: 'wrong-type', type: environment.type };
    const latest = await tx.getSnapshot(environment.id, -1);
    // Snapshot times never go backwards along the index, even when requests were started out of order.
    const at = Math.max(report.now, latest?.createdAt ?? 0, environment.last_reported_at ?? 0);
    const changed = !latest || !sameRunning(latest.artifacts, report.running, environment.include_scaling);
    // What ran before too: an artifact that exits is linked to its trail like one that starts.
    const {
      evidence,
      compliant: state,
      verdicts,
    } = await judgeRunning(tx, new TrailEvaluator(tx, at), {
      organizationId: report.organizationId,
      environment,
      running: report.running,
      others: changed ? (latest?.artifacts ?? []) : [],
      now: at,
    });
    // Each step below takes tens of ms for thousands of artifacts: the event loop runs between them.
    await nextTurn();
    // Each artifact's verdict by the attached policies, kept with the snapshot (judged as before: recorded before, nothing written).
    if (verdicts.length) await tx.recordVerdicts(report.organizationId, await verdictInputs(verdicts, report.tokenId, at));
    let index = latest?.index ?? 0;
    const deployed: string[] = [];
    if (changed) {
      index += 1;
      await tx.insertSnapshot(environment.id, index, report.running, at, report.tokenId, state);
      await nextTurn();
      // Fingerprints running before, and those already deployed by this report (one artifact may run under two names).
      const seen = new Set(latest?.artifacts.map((a) => a.fingerprint));
      const rows = [];
      for (const artifact of report.running) {
        if (seen.has(artifact.fingerprint)) continue;
        seen.add(artifact.fingerprint);
        deployed.push(artifact.fingerprint);
        const trail = evidence.get(artifact.fingerprint)?.match;
        rows.push({
          organizationId: report.organizationId,
          environmentId: environment.id,
          envName: environment.name,
          snapshotIndex: index,
          fingerprint: artifact.fingerprint,
          artifactName: artifact.name,
          deployedAt: at,
          trailId: trail?.trailId ?? null,
          repoName: trail?.repoName ?? null,
        });
      }
      await tx.insertDeployments(rows);
      await nextTurn();
      await tx.insertEnvironmentEvents(
        changesBetween(latest?.artifacts, report.running).map((change) => {
          const known = evidence.get(change.fingerprint);
          return {
            environmentId: environment.id,
            snapshotIndex: index,
            type: change.type,
            artifactName: change.name,
            fingerprint: change.fingerprint,
            instancesBefore: change.instancesBefore,
            instancesAfter: change.instancesAfter,
            trailId: known?.match?.trailId ?? null,
            repoName: known?.match?.repoName ?? null,
            artifactCompliant: known?.compliant ?? false,
            snapshotCompliant: state,
            reportedAt: at,
          };
        }),
      );
    }
    await tx.recordReport(environment.id, { at, changed, state });
    return { outcome: 'recorded', index, changed, deployed };
  });
}
