/**
 * What runs in an environment: a report's artifacts reduced to the set that snapshots compare,
 * and, for each running fingerprint, the trails that attested it.
 */
import type { ArtifactMatchRow, FingerprintAttestation, RunningArtifact, StoreUses } from '../store/types.ts';
import type { ComplianceStatus } from './compliance.ts';
import type { TrailEvaluator } from './evaluate.ts';

/** One running instance as the real clients report it: digests, a start time, and what identifies it. */
export interface ReportedArtifact {
  digests: Record<string, string>;
  creationTimestamp: number;
  [field: string]: unknown;
}

/**
 * Groups a report by (artifact name, fingerprint): one entry per artifact with its number of
 * instances, the earliest start, and the identifying fields of each instance (podName, namespace
 * and owners for K8S, taskArn for ECS, ...). Sorted, so that equal sets compare equal.
 */
export function runningArtifacts(reported: readonly ReportedArtifact[]): RunningArtifact[] {
  const byKey = new Map<string, RunningArtifact>();
  for (const instance of reported) {
    const identity: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(instance)) {
      if (typeof value === 'string' && field !== 'type') identity[field] = value;
      // A K8S pod's owner references, the one structured field an instance has, are kept as sent.
      else if (field === 'owners' && Array.isArray(value)) identity[field] = value;
    }
    for (const [name, fingerprint] of Object.entries(instance.digests)) {
      const key = artifactKey({ name, fingerprint });
      const entry = byKey.get(key);
      if (entry) {
        entry.instance_count += 1;
        entry.creation_timestamp = Math.min(entry.creation_timestamp, instance.creationTimestamp);
        entry.instances.push(identity);
      } else {
        byKey.set(key, { name, fingerprint, instance_count: 1, creation_timestamp: instance.creationTimestamp, instances: [identity] });
      }
    }
  }
  return [...byKey.values()].sort(byArtifact);
}

/** What tells running artifacts apart: the name they run under and their fingerprint. */
export const artifactKey = (a: { name: string; fingerprint: string }) => `${a.name}\u0000${a.fingerprint}`;

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The order of a snapshot's artifacts: by name, then fingerprint. */
export const byArtifact = (a: { name: string; fingerprint: string }, b: { name: string; fingerprint: string }) =>
  compare(a.name, b.name) || compare(a.fingerprint, b.fingerprint);

/**
 * Whether two sets of running artifacts are the same. Which (name, fingerprint) pairs run is
 * what counts; with `include_scaling` the number of instances of each counts too. Restarted
 * pods or moved tasks with the same artifacts are not a change.
 */
export function sameRunning(a: readonly RunningArtifact[], b: readonly RunningArtifact[], includeScaling: boolean): boolean {
  const key = (list: readonly RunningArtifact[]) =>
    JSON.stringify(list.map((x) => (includeScaling ? [x.name, x.fingerprint, x.instance_count] : [x.name, x.fingerprint])));
  return key(a) === key(b);
}

/** What a running fingerprint is matched to: a reported artifact (`kosli attest artifact`), else an attestation that names it. */
export interface ArtifactMatch {
  trailId: number;
  flowName: string;
  trailName: string;
  repoName: string | null;
  /** The artifact's git commit, else its trail's; null when neither is known. */
  gitCommit: string | null;
  commitUrl: string | null;
  /** The reported artifact matched; null when only an attestation names the fingerprint. */
  artifactId: number | null;
}

export interface FingerprintEvidence {
  /** The newest reported artifact with the fingerprint in a compliant trail, else the newest one; without any, the same over attestations. */
  match: ArtifactMatch | undefined;
  /** Whether a trail that reported or attested the fingerprint is compliant now. */
  compliant: boolean;
}

/** The queries `fingerprintEvidence` uses (beside its evaluator's). */
export const fingerprintEvidenceUses = ['artifactMatchesOf', 'attestationsOfFingerprints', 'effectiveTemplatesOf'] as const;

export const fromArtifact = (a: ArtifactMatchRow): ArtifactMatch => ({
  trailId: a.trailId,
  flowName: a.flowName,
  trailName: a.trailName,
  repoName: a.repoName,
  gitCommit: a.gitCommit,
  commitUrl: a.commitUrl || null,
  artifactId: a.id,
});
export const fromAttestation = (a: FingerprintAttestation): ArtifactMatch => ({
  trailId: a.trailId,
  flowName: a.flowName,
  trailName: a.trailName,
  repoName: a.repoName,
  gitCommit: a.commitSha,
  commitUrl: null,
  artifactId: null,
});

/**
 * Whether a match is compliant: a reported artifact that its trail's status shows (the latest of
 * its name) by its own state and the trail's own attestations, so that another artifact's failure
 * does not fail it; any other match by its trail's verdict.
 */
export function isCompliant(compliance: ComplianceStatus, artifactId: number | null): boolean {
  const entry = artifactId === null ? undefined : Object.values(compliance.artifacts_statuses).find((e) => e.artifact_id === String(artifactId));
  if (!entry) return compliance.is_compliant;
  return entry.is_compliant && compliance.attestations_statuses.every((s) => s.status === 'COMPLETE' && s.is_compliant);
}

/**
 * For each fingerprint: what it is matched to and whether a compliant trail vouches for it. The
 * reported artifacts, the attestations and every trail behind them are read in one batch: a
 * statement per 500 fingerprints and per 500 trails, however many pods run them.
 */
export async function fingerprintEvidence(
  store: StoreUses<typeof fingerprintEvidenceUses>,
  evaluator: TrailEvaluator,
  organizationId: number,
  fingerprints: readonly string[],
): Promise<Map<string, FingerprintEvidence>> {
  const distinct = [...new Set(fingerprints)];
  // Both newest first: the first candidate seen of a fingerprint is its newest.
  const [artifacts, attestations] = await Promise.all([
    store.artifactMatchesOf(organizationId, distinct),
    store.attestationsOfFingerprints(organizationId, distinct),
  ]);
  // A fingerprint reported as an artifact is matched among its artifacts only; the attestations
  // that name it count only for one never reported (as every one was before artifacts existed).
  const reported = new Set(artifacts.map((a) => a.fingerprint));
  const candidates = [
    ...artifacts.map((a) => ({ fingerprint: a.fingerprint, match: fromArtifact(a) })),
    ...attestations.filter((a) => !reported.has(a.fingerprint)).map((a) => ({ fingerprint: a.fingerprint, match: fromAttestation(a) })),
  ];
  const trails = candidates.length ? await store.effectiveTemplatesOf(candidates.map((c) => c.match.trailId)) : [];
  const verdicts = await evaluator.complianceOf(trails);
  const complianceOfTrail = new Map(trails.map((t, i) => [t.id, verdicts[i]!.compliance]));
  const out = new Map<string, FingerprintEvidence>(distinct.map((f) => [f, { match: undefined, compliant: false }]));
  // The first candidate that is compliant wins, else the first.
  for (const { fingerprint, match } of candidates) {
    const known = out.get(fingerprint)!;
    if (known.compliant) continue;
    const compliance = complianceOfTrail.get(match.trailId);
    if (compliance && isCompliant(compliance, match.artifactId)) out.set(fingerprint, { match, compliant: true });
    else known.match ??= match;
  }
  return out;
}
