/**
 * What the artifact page reads of one fingerprint, with the API's own store and domain functions
 * (the reads of get artifact and search): its reports (all of the organisation's, or one flow's),
 * newest first, each with its state and why; for the newest, its trail's compliance entry and the
 * attestations bound to it (by template name or fingerprint) with their data; where it runs and
 * ran, and its history. A fingerprint that only ran (never reported) has its whereabouts alone.
 */
import { artifactStateOf, type ArtifactState } from '../../domain/artifact-state.ts';
import { whereaboutsOfFingerprints } from '../../domain/artifact-facts.ts';
import type { ArtifactHistoryEvent, Whereabouts } from '../../domain/artifact-whereabouts.ts';
import type { ArtifactStatus, AttestationFacts } from '../../domain/compliance.ts';
import { TrailEvaluator } from '../../domain/evaluate.ts';
import { notFound } from '../../http/errors.ts';
import { requireFlow } from '../../operations/lookup.ts';
import { maxArtifactsRead, maxFingerprintEvents } from '../../store/queries/artifact-reads.ts';
import type { ReadArtifactRow, Store } from '../../store/index.ts';
import type { AttestationGlance } from '../../store/queries/attestation-reads.ts';
import { maxJsonShown } from '../components/attestation-kinds.tsx';

/** Attestations of the artifact read for their kinds' views (the ones that count); earlier ones are listed by name. */
export const maxAttestationsRead = 25;

export interface ArtifactReport {
  row: ReadArtifactRow;
  state: ArtifactState;
  info: string;
}

export interface ArtifactFacts {
  fingerprint: string;
  /** Its reports, newest first (at most `maxArtifactsRead`); empty for a fingerprint that only ran. */
  reports: ArtifactReport[];
  /** The name it ran as, when never reported. */
  ranAs: string | null;
  /** The newest report's entry in its trail's compliance (by template name), if it has one. */
  entry: ArtifactStatus | null;
  /** The attestations that count for it, by id (at most `maxAttestationsRead`), glanced at: what their kinds' views read. */
  counting: Map<number, AttestationGlance>;
  /** Its trail's other attestations about it (superseded by a later one of the same name), newest first. */
  earlier: AttestationFacts[];
  where: Whereabouts;
  /** Its history, newest first: the reports and what it did in environments. */
  history: ArtifactHistoryEvent[];
  /** Whether older environment events were left out (`maxFingerprintEvents`). */
  historyCut: boolean;
}

/** An attestation of the trail is about this artifact: it carries its fingerprint, else it names its template artifact (artifact-binding.ts). */
const isAbout = (f: AttestationFacts, row: ReadArtifactRow) =>
  f.fingerprint ? f.fingerprint === row.fingerprint : row.templateReferenceName !== '' && f.targets.includes(row.templateReferenceName);

export async function readArtifact(store: Store, org: { id: number; name: string }, fingerprint: string, flow: string | undefined): Promise<ArtifactFacts> {
  const now = Date.now() / 1000;
  const rows = (
    flow === undefined
      ? (await store.searchArtifactRows(org.id, fingerprint, maxArtifactsRead)).byFingerprint
      : await store.findFlowArtifacts(org.id, flow, { key: 'fingerprint', prefix: fingerprint }, maxArtifactsRead)
  ).filter((r) => r.fingerprint === fingerprint);
  if (!rows.length && flow !== undefined) {
    await requireFlow(store, org.name, flow);
    throw notFound(`Flow '${flow}' has no artifact with fingerprint ${fingerprint}.`);
  }
  const trails = [...new Map(rows.map((r) => [r.trailId, { id: r.trailId, effectiveTemplateSha256: r.effectiveTemplateSha256 }])).values()];
  const [evaluated, whereabouts, ran] = await Promise.all([
    new TrailEvaluator(store, now).complianceOf(trails),
    whereaboutsOfFingerprints(store, org.id, [fingerprint]),
    rows.length ? Promise.resolve([]) : store.deployedFingerprints(org.id, fingerprint, 1),
  ]);
  const where = whereabouts.get(fingerprint)!;
  if (!rows.length && !where.history.length && !ran.length)
    throw notFound(`No artifact with fingerprint ${fingerprint} was reported or ran in organization '${org.name}'.`);
  const byTrail = new Map(trails.map((t, i) => [t.id, evaluated[i]!]));
  const reports = rows.map((row) => ({ row, ...artifactStateOf(byTrail.get(row.trailId)!.compliance, row.templateReferenceName) }));

  const newest = rows[0];
  const trail = newest ? byTrail.get(newest.trailId)! : undefined;
  const entry = newest && trail ? (trail.compliance.artifacts_statuses[newest.templateReferenceName] ?? null) : null;
  const countingIds = (entry?.attestations_statuses ?? []).flatMap((s) => (s.attestation_id ? [Number(s.attestation_id)] : [])).slice(0, maxAttestationsRead);
  const glances = await store.attestationGlances(org.id, countingIds, maxJsonShown);
  const counting = new Map(glances.map((g) => [g.id, g]));
  const earlier = newest && trail ? trail.facts.filter((f) => isAbout(f, newest) && !countingIds.includes(f.id)).reverse() : [];

  const reported = rows.map((r) => ({
    event: `${r.templateReferenceName || r.filename} reported to ${r.flowName}/${r.trailName}`,
    type: 'created' as const,
    timestamp: r.createdAt,
    environment_name: null,
    snapshot_index: null,
  }));
  const history = [...reported, ...where.history].sort((a, b) => b.timestamp - a.timestamp);
  return {
    fingerprint,
    reports,
    ranAs: ran[0]?.artifactName ?? null,
    entry,
    counting,
    earlier,
    where,
    history,
    historyCut: where.history.length >= maxFingerprintEvents,
  };
}

/** Since when it runs in an environment (its last start there), and when it stopped (its last exit). */
export function lastEventIn(history: readonly ArtifactHistoryEvent[], environment: string, type: 'started' | 'exited'): number | null {
  // History is newest first.
  return history.find((e) => e.environment_name === environment && e.type === type)?.timestamp ?? null;
}
