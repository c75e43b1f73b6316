import { getSnapshotByExpression } from '@trailproof/schema';
import { parseSnapshotRef, snapshotRefRule } from '../domain/snappish.ts';
import { badRequest } from '../http/errors.ts';
import { kosliSnapshotView } from '../http/views/kosli-snapshot.ts';
import { definePlugin } from '../plugin.ts';
import { requireEnvironment, requireEnvironmentUses } from './lookup.ts';
import { matchRunning, matchRunningUses, requireSnapshot, requireSnapshotUses } from './snapshot-lookup.ts';

/** GET /snapshots/{org}/{env_name}/{snapshot_expression}: what `kosli get snapshot` and `assert snapshot` call. */
export const getSnapshotByExpressionPlugin = definePlugin({
  operation: getSnapshotByExpression,
  store: [...requireEnvironmentUses, ...requireSnapshotUses, 'listSnapshotSummaries', ...matchRunningUses],
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
    const fingerprints = [...snapshot.artifacts, ...(previous?.artifacts ?? [])].map((a) => a.fingerprint);
    const matches = await matchRunning(store, organization.id, fingerprints, now);
    const nextAt = summary.items[0]?.to ?? null;
    const body = kosliSnapshotView({ org: params.org, apiBase }, { environment, snapshot, previous, nextAt, matches });
    return { status: 200, body };
  },
});
