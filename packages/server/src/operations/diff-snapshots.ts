import { diffSnapshots } from '@trailproof/schema';
import { parseSnappish, snappishRule } from '../domain/snappish.ts';
import { badRequest } from '../http/errors.ts';
import { snapshotDiffView } from '../http/views/snapshot-diff.ts';
import { definePlugin } from '../plugin.ts';
import { requireEnvironment, requireEnvironmentUses, requireOrganization } from './lookup.ts';
import { matchRunning, matchRunningUses, requireSnapshot, requireSnapshotUses } from './snapshot-lookup.ts';

/** GET /env-diff/{org}?snappish1&snappish2: what `kosli diff snapshots` calls; both environments are the organisation's. */
export const diffSnapshotsPlugin = definePlugin({
  operation: diffSnapshots,
  store: [...requireEnvironmentUses, ...requireSnapshotUses, ...matchRunningUses],
  async handler({ params, query, store, now }) {
    const parsed = (['snappish1', 'snappish2'] as const).map((field) => {
      const snappish = parseSnappish(query[field], now);
      if (!snappish) throw badRequest(`Invalid ${field} '${query[field]}'`, { [`query.${field}`]: snappishRule });
      return snappish;
    });
    const organization = await requireOrganization(store, params.org);
    const [first, second] = await Promise.all(
      parsed.map(async ({ envName, ref }) => {
        const { environment } = await requireEnvironment(store, params.org, envName);
        const snapshot = await requireSnapshot(store, environment, ref);
        return { id: `${environment.name}#${snapshot.index}`, artifacts: snapshot.artifacts };
      }),
    );
    const fingerprints = [...first!.artifacts, ...second!.artifacts].map((a) => a.fingerprint);
    const matches = await matchRunning(store, organization.id, fingerprints, now);
    return { status: 200, body: snapshotDiffView(first!, second!, matches) };
  },
});
