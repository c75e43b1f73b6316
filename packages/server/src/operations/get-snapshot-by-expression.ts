import { getSnapshotByExpression } from '@trailproof/schema';
import { TrailEvaluator } from '../domain/evaluate.ts';
import { judgeRunning, judgeRunningUses, keptVerdictLeaves, keptVerdictLeavesUses } from '../domain/snapshot-judgement.ts';
import { parseSnapshotRef, snapshotRefRule } from '../domain/snappish.ts';
import { badRequest } from '../http/errors.ts';
import { kosliSnapshotView } from '../http/views/kosli-snapshot.ts';
import { definePlugin } from '../plugin.ts';
import { requireEnvironment, requireEnvironmentUses } from './lookup.ts';
import { requireSnapshot, requireSnapshotUses } from './snapshot-lookup.ts';

/**
 * GET /snapshots/{org}/{env_name}/{snapshot_expression}: what `kosli get snapshot` and `assert
 * snapshot` call (the latter exits 1 unless `compliant`). Judged now, by the policies attached now
 * (domain/snapshot-judgement.ts): evidence attested after the report counts, as a gate wants.
 * Each artifact's verdict by the policies is a record (made here when the judgement is new),
 * answered as its `verdict_log_index`.
 */
export const getSnapshotByExpressionPlugin = definePlugin({
  operation: getSnapshotByExpression,
  store: [...requireEnvironmentUses, ...requireSnapshotUses, 'listSnapshotSummaries', ...judgeRunningUses, ...keptVerdictLeavesUses.store],
  transaction: keptVerdictLeavesUses.transaction,
  async handler({ params, store, now, apiBase, principal }) {
    const ref = parseSnapshotRef(params.snapshot_expression, now);
    if (!ref) throw badRequest(`Invalid snapshot expression '${params.snapshot_expression}'`, { 'path.snapshot_expression': snapshotRefRule });
    const { organization, environment } = await requireEnvironment(store, params.org, params.env_name);
    const snapshot = await requireSnapshot(store, environment, ref);
    const one = { firstIndex: snapshot.index, lastIndex: snapshot.index, oldestFirst: true, offset: 0, limit: 1 };
    const [previous, summary] = await Promise.all([
      snapshot.index > 1 ? store.getSnapshot(environment.id, snapshot.index - 1) : undefined,
      store.listSnapshotSummaries(environment.id, one),
    ]);
    const judged = await judgeRunning(store, new TrailEvaluator(store, now), {
      organizationId: organization.id,
      environment,
      running: snapshot.artifacts,
      others: previous?.artifacts ?? [],
      now,
    });
    const verdictLeaves = await keptVerdictLeaves(store, organization.id, judged.verdicts, principal.tokenId, now);
    const nextAt = summary.items[0]?.to ?? null;
    const context = { environment, snapshot, previous, nextAt, matches: judged.evidence, applied: judged.applied, verdictLeaves };
    const body = kosliSnapshotView({ org: params.org, apiBase }, context);
    return { status: 200, body };
  },
});
