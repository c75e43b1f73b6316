/**
 * What runs in an environment: a report's artifacts reduced to the set that snapshots compare,
 * and, for each running fingerprint, the trails that attested it.
 */
import type { FingerprintAttestation, RunningArtifact, StoreUses } from '../store/types.ts';
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

export interface FingerprintEvidence {
  /** The latest attestation that carries the fingerprint (its trail is the one deployments link to). */
  latest: FingerprintAttestation | undefined;
  /** The latest attestation of it made in a trail that is compliant now, if any. */
  compliantIn: FingerprintAttestation | undefined;
  /** Whether any trail that attested the fingerprint is compliant now. */
  compliant: boolean;
}

/** The queries `fingerprintEvidence` uses (beside its evaluator's). */
export const fingerprintEvidenceUses = ['attestationsOfFingerprints', 'effectiveTemplatesOf'] as const;

/**
 * For each fingerprint: its latest attesting trail and whether a compliant trail attested it.
 * Every trail that attested one of them is judged in one batch: a statement per 500 fingerprints
 * and per 500 trails, however many pods run them (a K8S report of 1,000 pods is two of each).
 */
export async function fingerprintEvidence(
  store: StoreUses<typeof fingerprintEvidenceUses>,
  evaluator: TrailEvaluator,
  organizationId: number,
  fingerprints: readonly string[],
): Promise<Map<string, FingerprintEvidence>> {
  const distinct = [...new Set(fingerprints)];
  // Latest first: the first attestation seen of a fingerprint is its latest.
  const attestations = await store.attestationsOfFingerprints(organizationId, distinct);
  const trails = attestations.length ? await store.effectiveTemplatesOf(attestations.map((a) => a.trailId)) : [];
  const verdicts = await evaluator.complianceOf(trails);
  const compliantTrails = new Set(trails.filter((_, i) => verdicts[i]!.compliance.is_compliant).map((t) => t.id));
  const out = new Map<string, FingerprintEvidence>(distinct.map((f) => [f, { latest: undefined, compliantIn: undefined, compliant: false }]));
  for (const a of attestations) {
    const known = out.get(a.fingerprint)!;
    known.latest ??= a;
    if (!known.compliantIn && compliantTrails.has(a.trailId)) {
      known.compliantIn = a;
      known.compliant = true;
    }
  }
  return out;
}
