/**
 * Finding the snapshot a Kosli snapshot expression names (domain/snappish.ts), and matching what
 * ran in it to the trails that attested it: shared by the snapshot read and the diff.
 */
import { TrailEvaluator, trailEvaluatorUses } from '../domain/evaluate.ts';
import { fingerprintEvidence, fingerprintEvidenceUses, type FingerprintEvidence } from '../domain/running.ts';
import type { SnapshotRef } from '../domain/snappish.ts';
import { notFound } from '../http/errors.ts';
import type { SnapshotRecord, StoreUses } from '../store/types.ts';

export const requireSnapshotUses = ['getSnapshot', 'snapshotIndexAt'] as const;

/** The snapshot `ref` names in the environment, or the 404 saying which is missing. */
export async function requireSnapshot(
  store: StoreUses<typeof requireSnapshotUses>,
  environment: { id: number; name: string },
  ref: SnapshotRef,
): Promise<SnapshotRecord> {
  let index: number | undefined;
  if ('index' in ref) index = ref.index;
  else if ('back' in ref) index = -ref.back - 1;
  else index = await store.snapshotIndexAt(environment.id, ref.at);
  const snapshot = index === undefined ? undefined : await store.getSnapshot(environment.id, index);
  if (snapshot) return snapshot;
  const which = 'index' in ref ? `${ref.index}` : 'back' in ref ? `${ref.back} behind the latest` : `at ${new Date(ref.at * 1000).toISOString()}`;
  throw notFound(`Environment '${environment.name}' has no snapshot ${which}`);
}

export const matchRunningUses = [...fingerprintEvidenceUses, ...trailEvaluatorUses] as const;

/** What each fingerprint is matched to (its reported artifacts first, see fingerprintEvidence) and whether one is compliant now. */
export async function matchRunning(
  store: StoreUses<typeof matchRunningUses>,
  organizationId: number,
  fingerprints: readonly string[],
  now: number,
): Promise<Map<string, FingerprintEvidence>> {
  return fingerprintEvidence(store, new TrailEvaluator(store, now), organizationId, fingerprints);
}
