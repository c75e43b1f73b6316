/**
 * What the artifact reads add to stored artifacts: each one's state (from its trail's compliance)
 * and where its fingerprint runs and ran, for a whole answer at once.
 */
import type { Queries, ReadArtifactRow, StoreUses } from '../store/types.ts';
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
  const trails = trailsOf(rows);
  return statesOf(rows, trails, await new TrailEvaluator(store, now).complianceOf(trails));
}

/** The distinct trails of `rows`, each with the template it is evaluated against. */
const trailsOf = (rows: readonly ReadArtifactRow[]) => [
  ...new Map(rows.map((r) => [r.trailId, { id: r.trailId, effectiveTemplateSha256: r.effectiveTemplateSha256 }])).values(),
];

function statesOf(
  rows: readonly ReadArtifactRow[],
  trails: ReadonlyArray<{ id: number }>,
  evaluated: ReadonlyArray<{ compliance: Parameters<typeof artifactStateOf>[0] }>,
): Array<{ state: ArtifactState; info: string }> {
  const byTrail = new Map(trails.map((t, i) => [t.id, evaluated[i]!.compliance]));
  return rows.map((r) => artifactStateOf(byTrail.get(r.trailId)!, r.templateReferenceName));
}

/** What `artifactReadFacts` answers. */
export type ArtifactReadFacts = Awaited<ReturnType<Queries['artifactReadFacts']>>;

/** The queries `artifactFacts` uses. */
export const artifactFactsUses = [...trailEvaluatorUses, 'artifactReadFacts'] as const;

/**
 * What `artifactStates` and `whereaboutsOfFingerprints` find, and the log index of each row when
 * `withLogIndexes`, from one read of the store (`artifactReadFacts`, or `read` when the caller
 * read it with the rows); the trails' templates are read beside it.
 */
export async function artifactFacts(
  store: StoreUses<typeof artifactFactsUses>,
  now: number,
  organizationId: number,
  rows: readonly ReadArtifactRow[],
  o: { fingerprints: readonly string[]; withLogIndexes: boolean; read?: ArtifactReadFacts },
): Promise<{ states: Array<{ state: ArtifactState; info: string }>; where: Map<string, Whereabouts>; logIndexes: Map<number, number> }> {
  const trails = trailsOf(rows);
  // Read already with the rows (`flowArtifactsWithFacts`), or now.
  const read = o.read
    ? Promise.resolve(o.read)
    : store.artifactReadFacts(organizationId, {
        trailIds: trails.map((t) => t.id),
        artifactIds: o.withLogIndexes ? rows.map((r) => r.id) : [],
        fingerprints: o.fingerprints,
      });
  const [{ whereabouts, logIndexes }, evaluated] = await Promise.all([
    read,
    new TrailEvaluator(store, now).complianceOf(
      trails,
      read.then((r) => r.compliance),
    ),
  ]);
  const { events, latestSnapshots } = whereabouts;
  return {
    states: statesOf(rows, trails, evaluated),
    where: new Map(o.fingerprints.map((fp) => [fp, whereaboutsOf(fp, events, latestSnapshots)])),
    logIndexes,
  };
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
