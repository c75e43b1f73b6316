/**
 * Two snapshots compared as `kosli diff snapshots` reads it (kosli-dev/cli 71ac0f30
 * diffSnapshots.go `DiffSnapshotsResponse`): artifacts, by name and fingerprint as snapshots
 * compare them, only in the first, only in the second, in both with other instance counts, alike.
 */
import { artifactKey, type FingerprintEvidence } from '../../domain/running.ts';
import type { RunningArtifact } from '../../store/types.ts';
import { matchedFields } from './kosli-snapshot.ts';

type Counts = { instance_count: number } | { s1_instance_count: number; s2_instance_count: number };

function entry(artifact: RunningArtifact, counts: Counts, evidence: FingerprintEvidence | undefined) {
  const matched = matchedFields(evidence);
  const pods = artifact.instances.flatMap((i) => (typeof i.podName === 'string' ? [i.podName] : []));
  return {
    fingerprint: artifact.fingerprint,
    name: artifact.name,
    flow: matched.flowName,
    commit_url: matched.commitUrl,
    git_commit: matched.gitCommit,
    most_recent_timestamp: artifact.creation_timestamp,
    ...counts,
    ...(pods.length ? { pods } : {}),
  };
}

export interface DiffSide {
  id: string;
  artifacts: readonly RunningArtifact[];
}

export function snapshotDiffView(first: DiffSide, second: DiffSide, matches: ReadonlyMap<string, FingerprintEvidence>) {
  const inFirst = new Map(first.artifacts.map((a) => [artifactKey(a), a]));
  const inSecond = new Map(second.artifacts.map((a) => [artifactKey(a), a]));
  const only = (side: readonly RunningArtifact[], other: Map<string, RunningArtifact>) =>
    side.filter((a) => !other.has(artifactKey(a))).map((a) => entry(a, { instance_count: a.instance_count }, matches.get(a.fingerprint)));
  const both = second.artifacts.flatMap((a) => {
    const was = inFirst.get(artifactKey(a));
    return was ? [{ was, now: a }] : [];
  });
  return {
    snappish1: { snapshot_id: first.id, artifacts: only(first.artifacts, inSecond) },
    snappish2: { snapshot_id: second.id, artifacts: only(second.artifacts, inFirst) },
    changed: {
      artifacts: both
        .filter(({ was, now }) => was.instance_count !== now.instance_count)
        .map(({ was, now }) => entry(now, { s1_instance_count: was.instance_count, s2_instance_count: now.instance_count }, matches.get(now.fingerprint))),
    },
    'not-changed': {
      artifacts: both
        .filter(({ was, now }) => was.instance_count === now.instance_count)
        .map(({ now }) => entry(now, { instance_count: now.instance_count }, matches.get(now.fingerprint))),
    },
  };
}
