/**
 * Judging what runs in an environment, one rule wherever a snapshot is shown: each running
 * artifact is compliant when the environment allows its fingerprint (`kosli allow artifact`),
 * else, with policies attached, when every attached policy (its latest version) passes it under
 * every name it runs as, else (no policy) when a compliant trail vouches for it (running.ts). The
 * snapshot is compliant when every artifact that runs is. Facts are read in batches
 * (policy-facts.ts): a fixed number of statements however many pods run.
 */
import type { StoreUses } from '../store/types.ts';
import type { TrailEvaluator } from './evaluate.ts';
import { evaluatePolicy } from './policy-evaluate.ts';
import { PolicyExpressionError } from './policy-expression.ts';
import { gatherPolicyFacts, policyFactsUses } from './policy-facts.ts';
import { PolicyError, parsePolicy, type PolicyModel } from './policy.ts';
import {
  type ArtifactMatch,
  fingerprintEvidence,
  fingerprintEvidenceUses,
  type FingerprintEvidence,
  fromArtifact,
  fromAttestation,
  isCompliant,
} from './running.ts';

export const judgeRunningUses = [...fingerprintEvidenceUses, ...policyFactsUses, 'findPolicies', 'allowlistedFingerprints'] as const;

/** A policy as a snapshot was judged by it: the version read and its SHA-256 (Kosli's `applied_policies`). */
export interface AppliedPolicy {
  name: string;
  version: number;
  sha256: string;
}

export interface Judgement {
  /** Per fingerprint judged: its match (the trail shown) and, as `compliant`, its verdict by the rule above. */
  evidence: Map<string, FingerprintEvidence>;
  /** Whether every artifact of `running` is compliant. */
  compliant: boolean;
  applied: AppliedPolicy[];
}

export interface JudgementInput {
  organizationId: number;
  environment: { id: number; policies: readonly string[] };
  /** What runs: judged, and what makes the snapshot's compliance. */
  running: readonly { name: string; fingerprint: string }[];
  /** Judged as well (what exited since the previous snapshot), without counting for the snapshot. */
  others?: readonly { name: string; fingerprint: string }[];
  now: number;
}

/** Judges `running` (and `others`) by the environment's rule: see the module's comment. */
export async function judgeRunning(store: StoreUses<typeof judgeRunningUses>, evaluator: TrailEvaluator, j: JudgementInput): Promise<Judgement> {
  const all = [...j.running, ...(j.others ?? [])];
  const fingerprints = [...new Set(all.map((a) => a.fingerprint))];
  const [allowed, policies] = await Promise.all([
    fingerprints.length ? store.allowlistedFingerprints(j.environment.id, fingerprints) : new Set<string>(),
    j.environment.policies.length ? store.findPolicies(j.organizationId, j.environment.policies) : [],
  ]);
  const latest = policies.flatMap((p) => {
    const v = p.versions.at(-1);
    return v ? [{ name: p.name, version: v.version, sha256: v.sha256, model: modelOf(v.sha256, v.policy_yaml) }] : [];
  });
  const evidence = latest.length
    ? await judgedByPolicies(
        store,
        j,
        fingerprints,
        all,
        latest.map((p) => p.model),
      )
    : await fingerprintEvidence(store, evaluator, j.organizationId, fingerprints);
  for (const fingerprint of allowed) evidence.set(fingerprint, { ...evidence.get(fingerprint)!, compliant: true });
  const compliant = j.running.every((a) => evidence.get(a.fingerprint)?.compliant === true);
  return { evidence, compliant, applied: latest.map(({ model: _model, ...p }) => p) };
}

/**
 * Per fingerprint, every policy's verdict under each name it runs as, and the trail shown: its
 * newest report in a trail that vouches for it, else its newest report, else (never reported)
 * the newest attestation naming it. One gathering of facts serves both: the trails are
 * evaluated once, not again for the match as `fingerprintEvidence` would.
 */
async function judgedByPolicies(
  store: StoreUses<typeof judgeRunningUses>,
  j: JudgementInput,
  fingerprints: readonly string[],
  all: readonly { name: string; fingerprint: string }[],
  models: readonly (PolicyModel | null)[],
): Promise<Map<string, FingerprintEvidence>> {
  const gathered = await gatherPolicyFacts(store, j.now, j.organizationId, fingerprints);
  const unreported = fingerprints.filter((f) => !gathered.get(f)!.reports.length);
  const attested = new Map<string, ArtifactMatch>();
  // Newest first: the first seen of a fingerprint is its newest.
  for (const a of unreported.length ? await store.attestationsOfFingerprints(j.organizationId, unreported) : [])
    if (!attested.has(a.fingerprint)) attested.set(a.fingerprint, fromAttestation(a));
  const names = new Map<string, Set<string>>();
  for (const a of all) names.set(a.fingerprint, (names.get(a.fingerprint) ?? new Set()).add(a.name));
  const out = new Map<string, FingerprintEvidence>();
  for (const fingerprint of fingerprints) {
    const { facts, reports } = gathered.get(fingerprint)!;
    const shown = reports.find((r) => isCompliant(r.compliance, r.artifact.id)) ?? reports[0];
    const compliant = [...names.get(fingerprint)!].every((name) =>
      models.every((model) => model !== null && passesPolicy(model, { ...facts, artifact: { name, fingerprint } })),
    );
    out.set(fingerprint, { match: shown ? fromArtifact(shown.artifact) : attested.get(fingerprint), compliant });
  }
  return out;
}

/** Parsed versions by SHA-256 (a version never changes): a snapshot read parses none it has seen, and the cache stays bounded. */
const parsed = new Map<string, PolicyModel | null>();
const parsedKept = 256;

/** A stored version parsed; null for one the parser no longer takes (it judges nothing compliant). */
function modelOf(sha256: string, yaml: string): PolicyModel | null {
  const known = parsed.get(sha256);
  if (known !== undefined) return known;
  let model: PolicyModel | null;
  try {
    model = parsePolicy(yaml);
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    model = null;
  }
  if (parsed.size >= parsedKept) parsed.delete(parsed.keys().next().value!);
  parsed.set(sha256, model);
  return model;
}

/** Whether the policy passes the artifact; an expression that is not a condition fails it (the policy cannot vouch for it). */
function passesPolicy(model: PolicyModel, facts: Parameters<typeof evaluatePolicy>[1]): boolean {
  try {
    return evaluatePolicy(model, facts).compliant;
  } catch (error) {
    if (error instanceof PolicyExpressionError) return false;
    throw error;
  }
}
