import { getSnapshot } from '@trailproof/schema';
import { createdByName } from '../domain/created-by.ts';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { environmentHref, trailHref } from '../http/links.ts';
import { requireEnvironment, requireEnvironmentUses } from './lookup.ts';

/** GET /environments/{org}/{env_name}/snapshots/{snapshot_index}: -1 is the latest. */
export const getSnapshotPlugin = definePlugin({
  operation: getSnapshot,
  store: [...requireEnvironmentUses, 'getSnapshot', 'snapshotLogIndex', 'attestationsOfFingerprints'],
  async handler({ params, store, apiBase }) {
    const { organization, environment } = await requireEnvironment(store, params.org, params.env_name);
    const snapshot = await store.getSnapshot(environment.id, params.snapshot_index);
    if (!snapshot) throw notFound(`Snapshot ${params.snapshot_index} not found in environment '${params.env_name}'`);
    const previous = snapshot.index > 1 ? await store.getSnapshot(environment.id, snapshot.index - 1) : undefined;
    const logIndex = await store.snapshotLogIndex(organization.id, environment.id, snapshot.index);
    const before = new Set(previous?.artifacts.map((a) => a.fingerprint));
    // Latest first, so the first one seen for a fingerprint is the trail that attested it last.
    const latestTrail = new Map<string, { flowName: string; trailName: string }>();
    for (const a of await store.attestationsOfFingerprints(
      organization.id,
      snapshot.artifacts.map((x) => x.fingerprint),
    )) {
      if (!latestTrail.has(a.fingerprint)) latestTrail.set(a.fingerprint, a);
    }
    const at = { org: params.org, apiBase };
    return {
      status: 200,
      body: {
        env_name: environment.name,
        type: environment.type,
        snapshot_index: snapshot.index,
        created_at: snapshot.createdAt,
        created_by: createdByName(snapshot.createdBy),
        log_index: logIndex,
        artifacts: snapshot.artifacts.map((artifact) => {
          // The latest trail that attested the fingerprint, as known now (evidence may arrive after the report).
          const trail = latestTrail.get(artifact.fingerprint);
          return {
            ...artifact,
            new: !before.has(artifact.fingerprint),
            _links: trail ? { trail: { href: trailHref(at, trail.flowName, trail.trailName) } } : {},
          };
        }),
        _links: { environment: { href: environmentHref(at, params.env_name) } },
      },
    };
  },
});
