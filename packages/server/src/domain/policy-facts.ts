/**
 * Gathering what environment policies judge (`PolicyFacts`, policy-evaluate.ts) for many
 * fingerprints at once, from a fixed number of batched reads whatever their count: the reports
 * of the fingerprints, the facts of their trails' attestations (with the trails' compliance, one
 * evaluation per trail), and the controls of their `decision` attestations.
 */
import type { PolicyArtifactRow, Queries, StoreUses } from '../store/types.ts';
import type { AttestationFacts, ComplianceStatus } from './compliance.ts';
import { TrailEvaluator, trailEvaluatorUses } from './evaluate.ts';
import type { AttestationFact, PolicyFacts, TrailFact } from './policy-evaluate.ts';
import { pullRequestFactsOf } from './pull-request-facts.ts';

/** The queries `gatherPolicyFacts` uses, for a plugin's `store` list. */
export const policyFactsUses = [...trailEvaluatorUses, 'policyArtifactRows', 'decisionControlsOf', 'pullRequestsOf'] as const;

/** One report of the fingerprint (one trail it was reported in), with what was read of it. */
export interface ReportFacts {
  artifact: PolicyArtifactRow;
  /** Its trail's compliance against the trail's template (or its flow's), now. */
  compliance: ComplianceStatus;
  /** The ids of the attestations its `TrailFact` lists, in the same order. */
  attestationIds: number[];
}

/** What the policies of one fingerprint are judged on, and the evidence it came from. */
export interface GatheredPolicyFacts {
  /** Built when first read (the same object each time). */
  readonly facts: PolicyFacts;
  /** Every report of the fingerprint read, newest first (`facts.trails` in the same order); empty: no provenance. */
  reports: ReportFacts[];
}

/**
 * What `gatherPolicyFacts` reads, read already by the caller (`assertReads`, one read of the
 * fingerprints' reports, their trails' compliance facts and their decisions' controls).
 */
export type PolicyFactsRead = Pick<Awaited<ReturnType<Queries['assertReads']>>, 'rows' | 'compliance' | 'controls'>;

/**
 * The `PolicyFacts` of each of `fingerprints` in the organisation, keyed by fingerprint; every
 * fingerprint asked for has an entry, with no trails when no flow reported it (no provenance).
 *
 * - `options.flow`: only the reports in the flow of that name (`assert artifact --flow`).
 * - `options.names`: the artifact's name (`artifact.name` in expressions) where the caller knows
 *   it (a snapshot's pod image); else the filename of its latest report; else ''.
 *
 * Each trail the fingerprint was reported in gives one `TrailFact`: its flow's name and tags,
 * its compliance (as `get trail` answers it) and the attestations on the artifact and on the
 * trail, the latest of each name (on the artifact: those naming its template name in
 * `target_artifacts`, or carrying its fingerprint; on the trail: those carrying neither a target
 * nor a fingerprint), each with its type, compliance and, for `decision`, its control (for
 * `pull_request`, its pull requests); and the artifact's commit in that report.
 *
 * The reads are batched (a few queries for any number of fingerprints, each bound list chunked
 * below SQLite's variable limit), on both databases. `now` is the time compliance is judged at.
 * `options.read`: those reads made already for `fingerprints` (and `options.flow`), none made here.
 */
export async function gatherPolicyFacts(
  store: StoreUses<typeof policyFactsUses>,
  now: number,
  organizationId: number,
  fingerprints: readonly string[],
  options: { flow?: string; names?: ReadonlyMap<string, string>; read?: PolicyFactsRead } = {},
): Promise<Map<string, GatheredPolicyFacts>> {
  const { read } = options;
  const rows = read ? read.rows : fingerprints.length ? await store.policyArtifactRows(organizationId, fingerprints, options.flow) : [];
  const trails = [...new Map(rows.map((r) => [r.trailId, { id: r.trailId, effectiveTemplateSha256: r.effectiveTemplateSha256 }])).values()];
  const evaluated = await new TrailEvaluator(store, now).complianceOf(trails, read && Promise.resolve(read.compliance));
  // Controls are read only for trails that hold a decision (their facts list every attestation): most hold none, and the read is then one statement less.
  const deciding = trails.filter((_, i) => evaluated[i]!.facts.some((f) => f.type === 'decision'));
  const controls = read ? read.controls : deciding.length ? await store.decisionControlsOf(deciding.map((t) => t.id)) : new Map<number, string>();
  const byTrail = new Map(trails.map((t, i) => [t.id, evaluated[i]!]));
  const reportsOf = new Map<string, ReportFacts[]>();
  // The attestations that count for each report, for its `TrailFact` (built when first read).
  const countedOf = new Map<ReportFacts, AttestationFacts[]>();
  const pullRequestIds: number[] = [];
  for (const row of rows) {
    const { compliance, facts } = byTrail.get(row.trailId)!;
    const counted = countedFor(row, facts);
    const report = { artifact: row, compliance, attestationIds: counted.map((a) => a.id) };
    countedOf.set(report, counted);
    for (const a of counted) if (a.type === 'pull_request') pullRequestIds.push(a.id);
    const known = reportsOf.get(row.fingerprint);
    if (known) known.push(report);
    else reportsOf.set(row.fingerprint, [report]);
  }
  const pullRequests = pullRequestIds.length ? await store.pullRequestsOf(pullRequestIds) : new Map<number, unknown>();
  const out = new Map<string, GatheredPolicyFacts>();
  // One `TrailFact` for the reports of a trail that count the same attestations on the same commit
  // (a snapshot's artifacts of one build): made once, shared (nothing changes a fact once made).
  const shared = new Map<string, TrailFact>();
  const trailFactOf = (r: ReportFacts): TrailFact => {
    const key = `${r.artifact.trailId}\n${r.artifact.flowName}\n${r.artifact.gitCommit}\n${r.attestationIds.join(',')}`;
    let fact = shared.get(key);
    if (fact === undefined)
      shared.set(
        key,
        (fact = {
          flow: { name: r.artifact.flowName, tags: r.artifact.flowTags },
          trail: { name: r.artifact.trailName, compliant: r.compliance.is_compliant },
          commit: r.artifact.gitCommit,
          attestations: countedOf.get(r)!.map((a) => factOf(a, controls.get(a.id), pullRequests.get(a.id))),
        }),
      );
    return fact;
  };
  for (const fingerprint of new Set(fingerprints)) {
    const reports = reportsOf.get(fingerprint) ?? [];
    const name = options.names?.get(fingerprint) ?? reports[0]?.artifact.filename ?? '';
    // Built when first read: a judgement remembered by its reports' ids (judgement-memory.ts) reads none.
    let facts: PolicyFacts | undefined;
    out.set(fingerprint, {
      get facts() {
        return (facts ??= { artifact: { name, fingerprint }, trails: reports.map(trailFactOf) });
      },
      reports,
    });
  }
  return out;
}

/** Whether an attestation of the artifact's trail is about it (its template name or fingerprint), about the trail, or about another artifact. */
function scopeOf(a: AttestationFacts, artifact: PolicyArtifactRow): 'artifact' | 'trail' | undefined {
  if (a.targets.length) return a.targets.includes(artifact.templateReferenceName) ? 'artifact' : undefined;
  if (a.fingerprint) return a.fingerprint === artifact.fingerprint ? 'artifact' : undefined;
  return 'trail';
}

/** The attestations of the trail that count for the artifact: the latest of each name, on it or on the trail, oldest first (as `facts` come). */
function countedFor(artifact: PolicyArtifactRow, facts: readonly AttestationFacts[]): AttestationFacts[] {
  const latest = new Map<string, AttestationFacts>();
  for (const a of facts) if (scopeOf(a, artifact)) latest.set(a.name, a);
  return [...latest.values()].sort((x, y) => x.id - y.id);
}

const factOf = (a: AttestationFacts, control: string | undefined, pullRequests: unknown): AttestationFact => ({
  name: a.name,
  type: a.type,
  compliant: a.compliant,
  ...(a.type === 'decision' ? { for_control: control ?? null } : {}),
  ...(a.type === 'pull_request' ? { pull_requests: pullRequestFactsOf(pullRequests) } : {}),
});
