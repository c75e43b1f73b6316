/**
 * A snapshot in Kosli's shape (schema operations/kosli-snapshot.ts), as `kosli get snapshot` and
 * `assert snapshot` decode it: getSnapshot.go reads `creationTimestamp[0]` of every artifact that
 * runs (`annotation.now` > 0) and slices `git_commit[:7]` when it is not empty, without checks.
 */
import { createdByName } from '../../domain/created-by.ts';
import { artifactKey, type FingerprintEvidence } from '../../domain/running.ts';
import type { AppliedPolicy } from '../../domain/snapshot-judgement.ts';
import type { RunningArtifact, SnapshotRecord } from '../../store/types.ts';
import { environmentHref, trailHref, type ViewContext } from '../links.ts';

export interface SnapshotInContext {
  environment: { name: string; type: string };
  snapshot: SnapshotRecord;
  /** The snapshot before it, for what started, scaled and exited; undefined for the first. */
  previous: SnapshotRecord | undefined;
  /** When the next snapshot replaced it; null for the latest. */
  nextAt: number | null;
  matches: ReadonlyMap<string, FingerprintEvidence>;
  /** The policies it was judged by (none: judged by provenance alone). */
  applied?: readonly AppliedPolicy[];
  /** The leaf of each running artifact's verdict by those policies, by `artifactKey`. */
  verdictLeaves?: ReadonlyMap<string, number>;
}

/** The matched trail's fields of one artifact, empty strings when no trail attested it. */
export function matchedFields(evidence: FingerprintEvidence | undefined) {
  const match = evidence?.match;
  return {
    flowName: match?.flowName ?? '',
    trailName: match?.trailName ?? '',
    // A commit shorter than the 7 characters the CLI's table cuts would crash it: none is better.
    gitCommit: match?.gitCommit && match.gitCommit.length >= 7 ? match.gitCommit : '',
    commitUrl: match?.commitUrl ?? '',
    compliant: evidence?.compliant ?? false,
  };
}

function artifactView(
  at: ViewContext,
  artifact: RunningArtifact,
  was: number,
  now: number,
  type: string,
  evidence: FingerprintEvidence | undefined,
  k8s: boolean,
  verdictLeaf: number | null,
) {
  const matched = matchedFields(evidence);
  const pods: Record<string, { namespace: string; creationTimestamp: number; owners: unknown[] }> = {};
  for (const instance of artifact.instances) {
    if (typeof instance.podName !== 'string') continue;
    pods[instance.podName] = {
      namespace: typeof instance.namespace === 'string' ? instance.namespace : '',
      creationTimestamp: artifact.creation_timestamp,
      owners: Array.isArray(instance.owners) ? instance.owners : [],
    };
  }
  return {
    name: artifact.name,
    fingerprint: artifact.fingerprint,
    flow_name: matched.flowName,
    trail_name: matched.trailName,
    git_commit: matched.gitCommit,
    commit_url: matched.commitUrl,
    compliant: matched.compliant,
    verdict_log_index: verdictLeaf,
    deployments: [],
    // Snapshots keep the earliest start of an artifact's instances, not each one's.
    creationTimestamp: Array.from({ length: now > 0 ? now : was }, () => artifact.creation_timestamp),
    pods: k8s ? pods : null,
    annotation: { type, was, now },
    _links: matched.trailName ? { trail: { href: trailHref(at, matched.flowName, matched.trailName) } } : {},
  };
}

/** The snapshot's body: what runs (annotated against the previous snapshot), then what exited since it. */
export function kosliSnapshotView(at: ViewContext, s: SnapshotInContext) {
  const before = new Map((s.previous?.artifacts ?? []).map((a) => [artifactKey(a), a]));
  const running = new Set(s.snapshot.artifacts.map(artifactKey));
  const k8s = s.environment.type === 'K8S';
  const artifacts = s.snapshot.artifacts.map((a) => {
    const was = before.get(artifactKey(a))?.instance_count ?? 0;
    const type = was === 0 ? 'started' : was === a.instance_count ? 'unchanged' : 'scaled';
    return artifactView(at, a, was, a.instance_count, type, s.matches.get(a.fingerprint), k8s, s.verdictLeaves?.get(artifactKey(a)) ?? null);
  });
  for (const [key, a] of before) {
    if (!running.has(key)) artifacts.push(artifactView(at, a, a.instance_count, 0, 'exited', s.matches.get(a.fingerprint), k8s, null));
  }
  const compliantCount = s.snapshot.artifacts.filter((a) => s.matches.get(a.fingerprint)?.compliant === true).length;
  const environmentLink = environmentHref(at, s.environment.name);
  return {
    index: s.snapshot.index,
    timestamp: s.snapshot.createdAt,
    type: s.environment.type,
    user_id: s.snapshot.createdBy?.tokenId ?? '',
    user_name: createdByName(s.snapshot.createdBy) ?? '',
    compliant: compliantCount === s.snapshot.artifacts.length,
    is_latest: s.nextAt === null,
    next_snapshot_timestamp: s.nextAt,
    artifact_compliance_count: { compliant: compliantCount, non_compliant: s.snapshot.artifacts.length - compliantCount },
    applied_policies: (s.applied ?? []).map((p) => ({ ...p })),
    artifacts,
    _links: { environment: { href: environmentLink }, snapshot: { href: `${environmentLink}/snapshots/${s.snapshot.index}` } },
  };
}
