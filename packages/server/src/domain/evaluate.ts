/**
 * Evaluates trails against their templates with the store: loads attestations and template blobs
 * once per request (a report may ask about the same trail for many artifacts).
 */
import { targetArtifactsOf } from '../store/queries/attestation-facts.ts';
import type { ArtifactRow, AttestationRow, Queries, StoreUses } from '../store/types.ts';
import { evaluateCompliance, type AttestationFacts, type ComplianceStatus, type ReportedArtifact } from './compliance.ts';
import { parseTemplate, TemplateError, type TemplateModel } from './template.ts';

export interface LoadedTemplate {
  sha256: string;
  model: TemplateModel | TemplateError;
  content: string;
}

export interface EvaluatedTrail {
  compliance: ComplianceStatus;
  /** The facts of every attestation of the trail, oldest first. */
  facts: AttestationFacts[];
  /** The attestations of the page asked for, with their data, oldest first. */
  attestations: AttestationRow[];
  template: LoadedTemplate | null;
  /** The artifacts reported to the trail, oldest first. */
  artifacts: ArtifactRow[];
}

/** What compliance needs of a stored artifact. */
const reportedOf = (r: ArtifactRow): ReportedArtifact => ({ id: r.id, fingerprint: r.fingerprint, name: r.templateReferenceName });

/** The facts compliance needs from a stored attestation. */
export function factsOf(a: AttestationRow): AttestationFacts {
  return {
    id: a.id,
    name: a.name,
    type: a.type,
    compliant: a.compliant,
    targets: targetArtifactsOf(a.data),
    fingerprint: a.artifactFingerprint,
    createdAt: a.createdAt,
  };
}

/** A trail's compliance and the template it was evaluated against, without its attestations (for lists). */
export type EvaluatedCompliance = Pick<EvaluatedTrail, 'compliance' | 'template'>;

/** The queries a `TrailEvaluator` uses, for a plugin's `store` list. */
export const trailEvaluatorUses = [
  'getBlob',
  'listAttestations',
  'getTrailById',
  'attestationFactsOfTrails',
  'artifactsOfTrails',
  'complianceFactsOfTrails',
] as const;

/** Per-request evaluator with caches; not meant to outlive the request (evidence keeps arriving). */
export class TrailEvaluator {
  private readonly templates = new Map<string, Promise<LoadedTemplate | null>>();
  private readonly verdicts = new Map<number, Promise<boolean>>();

  constructor(
    private readonly store: StoreUses<typeof trailEvaluatorUses>,
    private readonly now: number,
  ) {}

  /** The template stored under `sha256`, parsed; a stored template that does not parse is kept as its error. */
  template(sha256: string | null): Promise<LoadedTemplate | null> {
    if (!sha256) return Promise.resolve(null);
    let loaded = this.templates.get(sha256);
    if (!loaded) {
      loaded = this.store.getBlob(sha256).then((blob) => {
        if (!blob) return null;
        const content = Buffer.from(blob.content).toString('utf8');
        let model: TemplateModel | TemplateError;
        try {
          model = parseTemplate(content);
        } catch (error) {
          if (!(error instanceof TemplateError)) throw error;
          model = error;
        }
        return { sha256, model, content };
      });
      this.templates.set(sha256, loaded);
    }
    return loaded;
  }

  /**
   * A trail's compliance status, from the facts of all of its attestations, and one page of its
   * attestations with their data (oldest first): a trail's data can be far more than one answer holds.
   */
  async evaluate(trail: { id: number; effectiveTemplateSha256: string | null }, page: { offset: number; limit: number }): Promise<EvaluatedTrail> {
    const [facts, attestations, template, artifacts] = await Promise.all([
      this.store.attestationFactsOfTrails([trail.id]),
      this.store.listAttestations(trail.id, page),
      this.template(trail.effectiveTemplateSha256),
      this.store.artifactsOfTrails([trail.id]),
    ]);
    const compliance = evaluateCompliance(template?.model ?? null, template?.sha256 ?? null, facts, this.now, artifacts.map(reportedOf));
    return { compliance, facts, attestations, template, artifacts };
  }

  /**
   * The compliance of each of `trails` (in their order), from their attestations' facts alone,
   * read in one query: what lists need, without any attestation's data. The facts come along.
   */
  async complianceOf(
    trails: ReadonlyArray<{ id: number; effectiveTemplateSha256: string | null }>,
    /** The trails' facts when the caller reads them itself (with other reads, `artifactReadFacts`). */
    read?: ReturnType<Queries['complianceFactsOfTrails']>,
  ): Promise<Array<EvaluatedCompliance & { facts: AttestationFacts[] }>> {
    const [{ facts, artifacts }, templates] = await Promise.all([
      read ?? this.store.complianceFactsOfTrails(trails.map((t) => t.id)),
      Promise.all(trails.map((t) => this.template(t.effectiveTemplateSha256))),
    ]);
    const byTrail = new Map<number, AttestationFacts[]>(trails.map((t) => [t.id, []]));
    for (const { trailId, ...fact } of facts) byTrail.get(trailId)?.push(fact);
    const artifactsByTrail = new Map<number, ReportedArtifact[]>(trails.map((t) => [t.id, []]));
    for (const { trailId, ...reported } of artifacts) artifactsByTrail.get(trailId)?.push(reported);
    return trails.map((trail, i) => {
      const template = templates[i]!;
      const facts = byTrail.get(trail.id)!;
      const compliance = evaluateCompliance(template?.model ?? null, template?.sha256 ?? null, facts, this.now, artifactsByTrail.get(trail.id));
      return { compliance, template, facts };
    });
  }

  /** Whether a trail is compliant now. */
  isCompliant(trailId: number): Promise<boolean> {
    let verdict = this.verdicts.get(trailId);
    if (!verdict) {
      verdict = this.store.getTrailById(trailId).then(async (trail) => (trail ? (await this.complianceOf([trail]))[0]!.compliance.is_compliant : false));
      this.verdicts.set(trailId, verdict);
    }
    return verdict;
  }
}
