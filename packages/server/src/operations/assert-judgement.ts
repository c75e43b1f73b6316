/**
 * `kosli assert artifact` (the plugin's work, kept apart for its size and the benchmark): the artifact judged against an environment's attached policies, named
 * policies, or (neither) the templates of the flows it was reported in, as `assertArtifact.go`
 * prints and decodes the answer. A verdict against policies is also a record in the
 * organisation's log (domain/verdict.ts), answered with its `log_index`.
 */
import { badRequest, notFound } from '../http/errors.ts';
import type { ViewContext } from '../http/links.ts';
import { artifactPageHref } from '../http/views/artifacts.ts';
import type { LatestPolicyVersion, Queries, StoreUses } from '../store/types.ts';
import type { AttestationStatus } from '../domain/compliance.ts';
import { artifactStateOf } from '../domain/artifact-state.ts';
import { parsePolicy, PolicyError, type PolicyModel } from '../domain/policy.ts';
import { PolicyExpressionError } from '../domain/policy-expression.ts';
import { evaluatePolicy } from '../domain/policy-evaluate.ts';
import { gatherPolicyFacts, policyFactsUses, type GatheredPolicyFacts, type ReportFacts } from '../domain/policy-facts.ts';
import type { Verdict, VerdictEvaluation } from '../domain/verdict.ts';
import { verdictEvidenceUses, verdictsOf } from '../domain/verdict-evidence.ts';
import { askedKey, factsKey, judgementKey, keep, keepLeaf, keepVerdict, leafIn, policiesKey, recall, verdictIn } from '../domain/judgement-memory.ts';
import { verdictText } from '../domain/snapshot-judgement.ts';

export const assertArtifactUses = [...policyFactsUses, ...verdictEvidenceUses, 'assertReads', 'fingerprintWhereabouts'] as const;

export interface AssertRequest {
  org: { id: number; name: string };
  fingerprint: string;
  flow?: string;
  /** The environment and its attached policies (environment scope). */
  environment?: { name: string; policies: readonly string[] };
  /** Named policies (policy scope). */
  policies?: readonly string[];
  /** What the judgement reads, read already with the environment (`assertReads`); else read here. */
  read?: Awaited<ReturnType<Queries['assertReads']>>;
}

/** How a verdict is kept: its leaf in the log, the existing record's when the same verdict was recorded before (null: not recorded). */
export type RecordVerdict = (verdict: Verdict, text: string, sha256: string) => Promise<number | null>;

/** Parsed policies by the SHA-256 of their YAML: a version never changes, so each is parsed once (up to a bound). */
const parsed = new Map<string, PolicyModel>();
function modelOf(p: LatestPolicyVersion): PolicyModel {
  let model = parsed.get(p.sha256);
  if (!model) {
    model = parsePolicy(p.yaml);
    if (parsed.size >= 1000) parsed.delete(parsed.keys().next().value!);
    parsed.set(p.sha256, model);
  }
  return model;
}

/** The artifact's compliance in one trail, as the CLI prints each flow. */
function flowOf(report: ReportFacts) {
  const { artifact, compliance } = report;
  const { state } = artifactStateOf(compliance, artifact.templateReferenceName);
  const own = compliance.artifacts_statuses[artifact.templateReferenceName]?.attestations_statuses ?? [];
  const statuses: AttestationStatus[] = [...compliance.attestations_statuses, ...own];
  return {
    flow: artifact.flowName,
    trail: artifact.trailName,
    artifact_name: artifact.templateReferenceName,
    compliance_status: { status: state, is_compliant: state === 'COMPLIANT', attestations_statuses: statuses },
  };
}

/** Judges the artifact as `assert artifact` asks; `record` keeps a verdict against policies. */
export async function assertArtifact(store: StoreUses<typeof assertArtifactUses>, now: number, at: ViewContext, r: AssertRequest, record: RecordVerdict) {
  const names = r.environment ? [...r.environment.policies] : r.policies ? [...new Set(r.policies)] : undefined;
  // Every statement before the judging in one read (on SQLite one message to a reader thread).
  const read = r.read ?? (await store.assertReads(r.org.id, r.org.name, { fingerprint: r.fingerprint, flow: r.flow, policies: names }));
  const reported = (await gatherPolicyFacts(store, now, r.org.id, [r.fingerprint], { flow: r.flow, read })).get(r.fingerprint)!;
  const byName = new Map(read.versions.map((v) => [v.name, v]));
  const missing = names?.find((n) => !byName.has(n));
  if (missing) throw notFound(`Policy '${missing}' does not exist in organization '${r.org.name}'`);
  const gathered = await namedAsItRuns(store, r, reported, names !== undefined);
  const reports = [...gathered.reports].reverse(); // oldest first, as the CLI lists flows
  const flows = reports.map(flowOf);
  const base = {
    scope: r.environment ? 'environment' : names ? 'policy' : 'flow',
    environment: r.environment?.name ?? null,
    fingerprint: r.fingerprint,
    html_url: artifactPageHref(at, reports[0]?.artifact.flowName ?? r.flow ?? '', r.fingerprint),
    flows,
  } as const;
  if (!names) return { compliant: flows.every((f) => f.compliance_status.is_compliant), ...base, policy_evaluations: [], log_index: null };

  const policies = names.map((n) => byName.get(n)!);
  const judged = {
    fingerprint: r.fingerprint,
    scope: r.environment ? 'environment' : 'policy',
    environment: r.environment?.name ?? null,
    flow: r.flow ?? null,
    policies,
    gathered,
    artifact: gathered.facts.artifact,
  } as const;
  // Remembered as a snapshot read remembers its artifacts' (judgement-memory.ts): the same judgement of the same evidence is neither evaluated, built nor hashed again.
  const key = judgementKey(askedKey({ organizationId: r.org.id, ...judged, policies: policiesKey(policies) }), judged.artifact, factsKey(store, gathered));
  const known = recall(key);
  const policy_evaluations: VerdictEvaluation[] = known?.evaluations.every((e) => e !== undefined)
    ? (known.evaluations as VerdictEvaluation[])
    : policies.map((p) => ({ policy_name: p.name, policy_version: p.version, policy_sha256: p.sha256, ...judge(p, gathered) }));
  const compliant = policy_evaluations.every((e) => e.compliant);
  const worked = known?.evaluations === policy_evaluations ? known : { evaluations: policy_evaluations };
  const verdict = verdictIn(worked, store) ?? (await verdictsOf(store, r.org.id, [{ ...judged, policy_evaluations }]))[0]!;
  keepVerdict(worked, store, verdict);
  keep(key, worked);
  // A verdict recorded (or found) once in this store's log keeps its leaf: asking again would find the same.
  let log_index = leafIn(verdict, store) ?? null;
  if (log_index === null) {
    const { text, sha256 } = verdictText(verdict);
    log_index = await record(verdict, text, sha256);
    if (log_index !== null) keepLeaf(verdict, store, log_index);
  }
  return { compliant, ...base, policy_evaluations, log_index };
}

/**
 * An artifact no flow reported is judged (no provenance) only where environments ran it, under
 * the name it last ran as (in the environment asked about, if it ran there), as a snapshot
 * judges it; else it is not found.
 */
async function namedAsItRuns(store: StoreUses<typeof assertArtifactUses>, r: AssertRequest, gathered: GatheredPolicyFacts, byPolicies: boolean) {
  if (gathered.reports.length) return gathered;
  const events = byPolicies && r.flow === undefined ? (await store.fingerprintWhereabouts(r.org.id, [r.fingerprint])).events : [];
  const last = events.findLast((e) => e.environmentName === r.environment?.name) ?? events.at(-1);
  if (last) return { ...gathered, facts: { ...gathered.facts, artifact: { name: last.artifactName, fingerprint: r.fingerprint } } };
  const where = r.flow === undefined ? `in organization '${r.org.name}'` : `in flow '${r.flow}' belonging to organization '${r.org.name}'`;
  throw notFound(`Artifact with fingerprint '${r.fingerprint}' does not exist ${where}`);
}

function judge(p: LatestPolicyVersion, gathered: GatheredPolicyFacts) {
  try {
    return evaluatePolicy(modelOf(p), gathered.facts);
  } catch (error) {
    if (error instanceof PolicyExpressionError || error instanceof PolicyError)
      throw badRequest(`Policy '${p.name}' v${p.version} cannot be evaluated: ${error.message}`);
    throw error;
  }
}
