import { getSnapshotByExpression } from '@trailproof/schema';
import { TrailEvaluator } from '../domain/evaluate.ts';
import { judgeRunning, judgeRunningUses } from '../domain/snapshot-judgement.ts';
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
 */
export const getSnapshotByExpressionPlugin = definePlugin({
  operation: getSnapshotByExpression,
  store: [...requireEnvironmentUses, ...requireSnapshotUses, 'listSnapshotSummaries', ...judgeRunningUses],
  async handler({ params, store, now, apiBase }) {
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
    const nextAt = summary.items[0]?.to ?? null;
    const context = { environment, snapshot, previous, nextAt, matches: judged.evidence, applied: judged.applied };
    const body = kosliSnapshotView({ org: params.org, apiBase }, context);
    return { status: 200, body };
  },
});
