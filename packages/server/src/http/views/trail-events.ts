/**
 * A trail's `events` as Kosli's get-trail answer has them, which `kosli get trail` prints as its
 * events table ("artifact 'X' created for template name 'Y'", "'junit' attestation reported for
 * backend.unit-tests"): the trail's begin, each artifact reported, each attestation made.
 */
import type { TrailEventBody } from '@trailproof/schema';
import type { AttestationFacts } from '../../domain/compliance.ts';
import type { ArtifactRow, TrailRow } from '../../store/types.ts';

/** Events one answer tells at most: the newest, since a trail attested on every run grows without end. */
export const maxTrailEvents = 1_000;

type CommitInfo = TrailEventBody['git_commit_info'];

/** An attestation's events: for the reported artifact its fingerprint names, else for each template artifact it names, else for the trail. */
function attestationEvents(a: AttestationFacts, at: number, commit: CommitInfo, byFingerprint: ReadonlyMap<string, ArtifactRow>): TrailEventBody[] {
  const common = {
    timestamp: a.createdAt ?? at,
    git_commit_info: commit,
    attestation_type: a.type,
    attestation_id: String(a.id),
    is_compliant: a.compliant,
    template_reference_name: a.name,
  };
  const artifact = a.fingerprint ? byFingerprint.get(a.fingerprint) : undefined;
  if (artifact) {
    const target = a.targets[0] ?? artifact.templateReferenceName;
    return [
      {
        type: 'artifact_attestation_reported',
        ...common,
        artifact_fingerprint: artifact.fingerprint,
        artifact_name: artifact.filename,
        target_artifact: target,
      },
    ];
  }
  if (a.targets.length) return a.targets.map((target) => ({ type: 'trail_attestation_for_artifact_reported', ...common, target_artifact: target }));
  return [{ type: 'trail_attestation_reported', ...common, ...(a.fingerprint ? { artifact_fingerprint: a.fingerprint } : {}) }];
}

/**
 * The trail's events, oldest first (the newest `maxTrailEvents`), and how many there are. An
 * attestation's commit is the trail's: only the trail's is stored outside the attestation's data.
 */
export function trailEvents(
  trail: TrailRow,
  facts: readonly AttestationFacts[],
  artifacts: readonly ArtifactRow[],
): { events: TrailEventBody[]; total: number } {
  const commit = (trail.gitCommitInfo as CommitInfo) ?? null;
  const byFingerprint = new Map(artifacts.map((r) => [r.fingerprint, r]));
  const events: Array<TrailEventBody & { order: number }> = [{ type: 'trail_reported', timestamp: trail.createdAt, git_commit_info: commit, order: 0 }];
  for (const r of artifacts) {
    events.push({
      type: 'artifact_creation_reported',
      timestamp: r.createdAt,
      git_commit_info: (r.gitCommitInfo as CommitInfo) ?? null,
      artifact_fingerprint: r.fingerprint,
      artifact_name: r.filename,
      artifact_id: String(r.id),
      template_reference_name: r.templateReferenceName,
      git_commit: r.gitCommit ?? '',
      order: 1,
    });
  }
  for (const a of facts) for (const e of attestationEvents(a, trail.createdAt, commit, byFingerprint)) events.push({ ...e, order: 2 });
  // In time; at the same moment the begin, then artifacts, then attestations, each in the order stored.
  events.sort((x, y) => x.timestamp - y.timestamp || x.order - y.order);
  return { events: events.slice(-maxTrailEvents).map(({ order: _order, ...e }) => e), total: events.length };
}
