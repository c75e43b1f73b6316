/**
 * Judging what runs in an environment, one rule wherever a snapshot is shown: each running
 * artifact is compliant when the environment allows its fingerprint (`kosli allow artifact`),
 * else, with policies attached, when every attached policy (its latest version) passes it under
 * every name it runs as, else (no policy) when a compliant trail vouches for it (running.ts). The
 * snapshot is compliant when every artifact that runs is. Facts are read in batches
 * (policy-facts.ts): a fixed number of statements however many pods run.
 */
import { canonicalJsonOfPlain, sha256 } from '../store/queries/chain.ts';
import type { LatestPolicyVersion, StorePart, StoreUses } from '../store/types.ts';
import { nextTurn } from '../support/turns.ts';
import type { TrailEvaluator } from './evaluate.ts';
import {
  askedKey,
  factsKey,
  judgementKey,
  keep,
  keepLeaf,
  keepVerdict,
  leafIn,
  policiesKey,
  readsCommitted,
  recall,
  verdictIn,
  type Worked,
} from './judgement-memory.ts';
import { evaluatePolicy } from './policy-evaluate.ts';
import { PolicyExpressionError } from './policy-expression.ts';
import { gatherPolicyFacts, policyFactsUses } from './policy-facts.ts';
import { PolicyError, parsePolicy, type PolicyModel } from './policy.ts';
import type { Verdict, VerdictEvaluation } from './verdict.ts';
import { type Judged, verdictEvidenceUses, verdictsOf } from './verdict-evidence.ts';
import {
  artifactKey,
  type ArtifactMatch,
  fingerprintEvidence,
  fingerprintEvidenceUses,
  type FingerprintEvidence,
  fromArtifact,
  fromAttestation,
  isCompliant,
} from './running.ts';

export const judgeRunningUses = [
  ...fingerprintEvidenceUses,
  ...policyFactsUses,
  ...verdictEvidenceUses,
  'latestPolicyVersions',
  'allowlistedFingerprints',
] as const;

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
  /**
   * With policies attached, the verdict of each artifact that runs (a fingerprint under each of
   * its names) as `assert artifact --environment` makes one; none where a policy cannot be
   * evaluated. An allow-listed artifact's verdict says what its policies found.
   */
  verdicts: Verdict[];
}

export interface JudgementInput {
  organizationId: number;
  environment: { id: number; name: string; policies: readonly string[] };
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
  const [allowed, versions] = await Promise.all([
    fingerprints.length ? store.allowlistedFingerprints(j.environment.id, fingerprints) : new Set<string>(),
    j.environment.policies.length ? store.latestPolicyVersions(j.organizationId, j.environment.policies) : [],
  ]);
  const byName = new Map(versions.map((v) => [v.name, v]));
  const latest = j.environment.policies.flatMap((name) => {
    const v = byName.get(name);
    return v ? [{ ...v, model: modelOf(v.sha256, v.yaml) }] : [];
  });
  const { evidence, judged, worked } = latest.length
    ? await judgedByPolicies(store, j, fingerprints, all, latest)
    : { evidence: await fingerprintEvidence(store, evaluator, j.organizationId, fingerprints), judged: [], worked: [] };
  for (const fingerprint of allowed) evidence.set(fingerprint, { ...evidence.get(fingerprint)!, compliant: true });
  const compliant = j.running.every((a) => evidence.get(a.fingerprint)?.compliant === true);
  const fresh = judged.flatMap((one, i) => (one ? [i] : []));
  const built = await verdictsOf(
    store,
    j.organizationId,
    fresh.map((i) => judged[i]!),
  );
  const made = new Map(fresh.map((i, k) => [i, built[k]!]));
  if (readsCommitted(store)) for (const [i, verdict] of made) keepVerdict(worked[i]!, store, verdict);
  const verdicts = judged.map((_, i) => made.get(i) ?? verdictIn(worked[i]!, store)!);
  return { evidence, compliant, applied: latest.map((p) => ({ name: p.name, version: p.version, sha256: p.sha256 })), verdicts };
}

/**
 * Verdict texts and their SHA-256, by verdict (one remembered in judgement-memory.ts is the same
 * object each time) and by what it judged (the policies and facts with their leaves, written as
 * built: the evaluations follow from those, so the same key is the same text): a snapshot read or
 * report again neither serialises nor hashes what did not change. Bounded; a pure function's
 * memory, whatever the database.
 */
const textsOfVerdicts = new WeakMap<Verdict, { text: string; sha256: string }>();
const texts = new Map<string, { text: string; sha256: string }>();
const textsKept = 10_000;

/** The verdict's canonical JSON and its SHA-256, from memory where it was made before. */
export function verdictText(v: Verdict): { text: string; sha256: string } {
  let known = textsOfVerdicts.get(v);
  if (known !== undefined) return known;
  const key = JSON.stringify([v.scope, v.environment, v.flow, v.fingerprint, v.artifact, v.policies, v.trails]);
  known = texts.get(key);
  if (known === undefined) {
    const text = canonicalJsonOfPlain(v);
    known = { text, sha256: sha256(text) };
    if (texts.size >= textsKept) texts.delete(texts.keys().next().value!);
    texts.set(key, known);
  }
  textsOfVerdicts.set(v, known);
  return known;
}

/** The judgement's verdicts as the store records them, a hundred at a time between turns of the event loop. */
export async function verdictInputs(verdicts: readonly Verdict[], createdBy: string | null, at: number) {
  const out = [];
  for (const [i, v] of verdicts.entries()) {
    if (i > 0 && i % 100 === 0) await nextTurn();
    const { text, sha256 } = verdictText(v);
    out.push({ fingerprint: v.fingerprint, verdict: text, sha256, compliant: v.compliant, createdBy, at });
  }
  return out;
}

/** What `keptVerdictLeaves` uses of the store. */
export const keptVerdictLeavesUses = { store: ['findVerdictLeaves'], transaction: ['recordVerdicts'] } as const;

/**
 * Each judged artifact's verdict leaf, by `artifactKey`, recording the verdicts not recorded yet:
 * read first, so that a snapshot read again as it was judged before writes nothing. A verdict
 * whose leaf this store found or recorded before (judgement-memory.ts: the same verdict object,
 * remembered with what it judged) is neither serialised, hashed nor looked up again.
 */
export async function keptVerdictLeaves(
  store: StorePart<'findVerdictLeaves', 'recordVerdicts'>,
  organizationId: number,
  verdicts: readonly Verdict[],
  createdBy: string | null,
  at: number,
): Promise<Map<string, number>> {
  const leaves = verdicts.map((v) => leafIn(v, store));
  const unknown = verdicts.filter((_, i) => leaves[i] === undefined);
  if (unknown.length) {
    const inputs = await verdictInputs(unknown, createdBy, at);
    const found = await store.findVerdictLeaves(
      organizationId,
      inputs.map((v) => v.sha256),
    );
    const kept = found.every((leaf) => leaf !== undefined) ? (found as number[]) : await store.transaction((tx) => tx.recordVerdicts(organizationId, inputs));
    unknown.forEach((v, k) => keepLeaf(v, store, kept[k]!));
  }
  return new Map(verdicts.map((v) => [artifactKey(v.artifact), leafIn(v, store)!]));
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
  policies: readonly (LatestPolicyVersion & { model: PolicyModel | null })[],
): Promise<{ evidence: Map<string, FingerprintEvidence>; judged: (Judged | undefined)[]; worked: Worked[] }> {
  const gathered = await gatherPolicyFacts(store, j.now, j.organizationId, fingerprints);
  const unreported = fingerprints.filter((f) => !gathered.get(f)!.reports.length);
  const attested = new Map<string, ArtifactMatch>();
  // Newest first: the first seen of a fingerprint is its newest.
  for (const a of unreported.length ? await store.attestationsOfFingerprints(j.organizationId, unreported) : [])
    if (!attested.has(a.fingerprint)) attested.set(a.fingerprint, fromAttestation(a));
  const names = new Map<string, Set<string>>();
  for (const a of all) names.set(a.fingerprint, (names.get(a.fingerprint) ?? new Set()).add(a.name));
  const running = new Set(j.running.map(artifactKey));
  const out = new Map<string, FingerprintEvidence>();
  const judged: (Judged | undefined)[] = [];
  const worked: Worked[] = [];
  const asked = askedKey({
    organizationId: j.organizationId,
    scope: 'environment',
    environment: j.environment.name,
    flow: null,
    policies: policiesKey(policies),
  });
  for (const fingerprint of fingerprints) {
    const facts = gathered.get(fingerprint)!;
    const shown = facts.reports.find((r) => isCompliant(r.compliance, r.artifact.id)) ?? facts.reports[0];
    const ofFacts = factsKey(store, facts);
    let compliant = true;
    for (const name of names.get(fingerprint)!) {
      const artifact = { name, fingerprint };
      const key = judgementKey(asked, artifact, ofFacts);
      let known = recall(key);
      if (known === undefined) keep(key, (known = { evaluations: policies.map((p) => evaluationOf(p, { ...facts.facts, artifact })) }));
      const evaluations = known.evaluations;
      compliant &&= evaluations.every((e) => e?.compliant === true);
      if (running.has(artifactKey(artifact)) && evaluations.every((e) => e !== undefined)) {
        worked.push(known);
        // What a verdict is built from, only where none is kept for this store (most of a snapshot read again).
        judged.push(
          verdictIn(known, store)
            ? undefined
            : {
                fingerprint,
                scope: 'environment',
                environment: j.environment.name,
                flow: null,
                policies,
                gathered: facts,
                artifact,
                policy_evaluations: evaluations as VerdictEvaluation[],
              },
        );
      }
    }
    out.set(fingerprint, { match: shown ? fromArtifact(shown.artifact) : attested.get(fingerprint), compliant });
  }
  return { evidence: out, judged, worked };
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

/** The policy's evaluation of the artifact as a verdict names it; undefined where it cannot vouch for it (a version the parser no longer takes, an expression that is not a condition). */
function evaluationOf(p: LatestPolicyVersion & { model: PolicyModel | null }, facts: Parameters<typeof evaluatePolicy>[1]): VerdictEvaluation | undefined {
  if (p.model === null) return undefined;
  try {
    return { policy_name: p.name, policy_version: p.version, policy_sha256: p.sha256, ...evaluatePolicy(p.model, facts) };
  } catch (error) {
    if (error instanceof PolicyExpressionError) return undefined;
    throw error;
  }
}
