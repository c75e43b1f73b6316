/**
 * What the artifact reads add to stored artifacts: each one's state (from its trail's compliance)
 * and where its fingerprint runs and ran, for a whole answer at once.
 */
import type { ReadArtifactRow, StoreUses } from '../store/types.ts';
import { artifactStateOf, type ArtifactState } from './artifact-state.ts';
import { whereaboutsOf, type Whereabouts } from './artifact-whereabouts.ts';
import { TrailEvaluator, trailEvaluatorUses } from './evaluate.ts';

/** The queries `artifactStates` uses. */
export const artifactStatesUses = trailEvaluatorUses;

/** Each artifact's state and why, in the order of `rows`; each trail is evaluated once, from the template the row names. */
export async function artifactStates(
  store: StoreUses<typeof artifactStatesUses>,
  now: number,
  rows: readonly ReadArtifactRow[],
): Promise<Array<{ state: ArtifactState; info: string }>> {
  const trails = [...new Map(rows.map((r) => [r.trailId, { id: r.trailId, effectiveTemplateSha256: r.effectiveTemplateSha256 }])).values()];
  const evaluated = await new TrailEvaluator(store, now).complianceOf(trails);
  const byTrail = new Map(trails.map((t, i) => [t.id, evaluated[i]!.compliance]));
  return rows.map((r) => artifactStateOf(byTrail.get(r.trailId)!, r.templateReferenceName));
}

/** The queries `whereaboutsOfFingerprints` uses. */
export const whereaboutsUses = ['fingerprintWhereabouts'] as const;

/** Where each of `fingerprints` runs and ran in the organisation's environments, with its history there. */
export async function whereaboutsOfFingerprints(
  store: StoreUses<typeof whereaboutsUses>,
  organizationId: number,
  fingerprints: readonly string[],
): Promise<Map<string, Whereabouts>> {
  const { events, latestSnapshots } = await store.fingerprintWhereabouts(organizationId, fingerprints);
  return new Map(fingerprints.map((fp) => [fp, whereaboutsOf(fp, events, latestSnapshots)]));
}
