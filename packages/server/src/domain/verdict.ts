/**
 * A verdict of `assert artifact` as a record anyone can re-check: what was judged (the
 * fingerprint, the scope, each policy version by name, number, SHA-256 and log index, and the
 * facts read, each naming the log index of the record it came from) and what came of it (the
 * result and every rule's resolutions). `rederiveVerdict` takes a verdict and the records it
 * names, as an audit package holds them, and judges again with the same pure `evaluatePolicy`:
 * a verdict that does not follow from its evidence is named with the first reason.
 */
import { canonicalJson, sha256 } from '../store/queries/chain.ts';
import { parsePolicy } from './policy.ts';
import { evaluatePolicy, type AttestationFact, type PolicyEvaluation, type PolicyFacts } from './policy-evaluate.ts';

export const VERDICT_FORMAT = 'trailproof-verdict/1';

/** A policy version as a verdict names it. */
export interface VerdictPolicy {
  name: string;
  version: number;
  /** SHA-256 of the version's YAML as stored (its row's `sha256`). */
  sha256: string;
  log_index: number;
}

/** The facts of one trail, each naming the record it was read from. */
export interface VerdictTrail {
  flow: { name: string; tags: Record<string, string> };
  trail: { name: string; compliant: boolean };
  /** The artifact's commit in this report (absent from verdicts made before four eyes). */
  commit?: string | null;
  /** The leaf of the artifact's report in this trail. */
  artifact_log_index: number;
  attestations: Array<AttestationFact & { log_index: number }>;
}

/** One policy's evaluation as the answer shows it. */
export type VerdictEvaluation = PolicyEvaluation & { policy_name: string; policy_version: number; policy_sha256: string };

/** The verdict record (its canonical JSON is what is stored, hashed and logged). */
export interface Verdict {
  format: typeof VERDICT_FORMAT;
  fingerprint: string;
  scope: 'environment' | 'policy';
  environment: string | null;
  flow: string | null;
  policies: VerdictPolicy[];
  artifact: { name: string; fingerprint: string };
  trails: VerdictTrail[];
  /** Every record read, by kind: the leaves above, sorted, each once. */
  inputs: { artifacts: number[]; attestations: number[]; policy_versions: number[] };
  compliant: boolean;
  policy_evaluations: VerdictEvaluation[];
}

const sorted = (values: number[]) => [...new Set(values)].sort((a, b) => a - b);

/** The verdict of these evaluations of these facts; `inputs` follows from the rest. */
export function verdictOf(v: Omit<Verdict, 'format' | 'inputs'>): Verdict {
  return {
    format: VERDICT_FORMAT,
    ...v,
    inputs: {
      artifacts: sorted(v.trails.map((t) => t.artifact_log_index)),
      attestations: sorted(v.trails.flatMap((t) => t.attestations.map((a) => a.log_index))),
      policy_versions: sorted(v.policies.map((p) => p.log_index)),
    },
  };
}

/** The facts a verdict judged, as `evaluatePolicy` takes them (log indexes left out). */
export function factsOfVerdict(v: Pick<Verdict, 'artifact' | 'trails'>): PolicyFacts {
  return {
    artifact: v.artifact,
    trails: v.trails.map((t) => ({
      flow: t.flow,
      trail: t.trail,
      ...(t.commit === undefined ? {} : { commit: t.commit }),
      attestations: t.attestations.map(({ log_index: _, ...a }) => a),
    })),
  };
}

/** A record a verdict names, as the audit package holds it: its leaf's type and data, and its row. */
export interface NamedRecord {
  type: string;
  data: Record<string, unknown>;
  row: Record<string, unknown>;
}

/**
 * Why the verdict does not follow from the records it names (the first reason), or undefined
 * when judging its facts again with each policy's YAML gives the same result. `recordAt(i)` is
 * the record at leaf i, undefined when the package does not hold it.
 */
export function rederiveVerdict(verdict: unknown, recordAt: (index: number) => NamedRecord | undefined): string | undefined {
  const v = verdict as Verdict;
  if (!v || typeof v !== 'object' || v.format !== VERDICT_FORMAT) return `is not a verdict of ${VERDICT_FORMAT}`;
  try {
    const expected = verdictOf({ ...v });
    if (canonicalJson(expected.inputs) !== canonicalJson(v.inputs)) return 'its inputs are not the records its facts name';
    const named = (index: number, type: string, what: string): NamedRecord | string => {
      const record = recordAt(index);
      if (!record) return `${what} is record ${index}, which the package does not hold`;
      if (record.type !== type) return `${what} is record ${index}, a ${record.type}, not a ${type}`;
      return record;
    };
    const evaluations: VerdictEvaluation[] = [];
    // A verdict by a policy with four eyes must name the commits and pull requests it read; older verdicts name neither.
    let fourEyes = false;
    for (const p of v.policies) {
      const record = named(p.log_index, 'policy.version', `policy '${p.name}' v${p.version}`);
      if (typeof record === 'string') return record;
      const yaml = String(record.row.policy_yaml);
      if (record.data.policy !== p.name || Number(record.row.version) !== p.version || record.row.sha256 !== p.sha256 || sha256(yaml) !== p.sha256)
        return `policy '${p.name}' v${p.version} (SHA-256 ${p.sha256}) is not the policy version of record ${p.log_index}`;
      const model = parsePolicy(yaml);
      fourEyes ||= model.trailproof?.['four-eyes'] !== undefined;
      const evaluation = evaluatePolicy(model, factsOfVerdict(v));
      evaluations.push({ policy_name: p.name, policy_version: p.version, policy_sha256: p.sha256, ...evaluation });
    }
    for (const t of v.trails) {
      const where = `trail '${t.trail.name}' of flow '${t.flow.name}'`;
      const artifact = named(t.artifact_log_index, 'artifact', `the artifact's report in ${where}`);
      if (typeof artifact === 'string') return artifact;
      if (artifact.row.fingerprint !== v.fingerprint || artifact.data.flow !== t.flow.name || artifact.data.trail !== t.trail.name)
        return `record ${t.artifact_log_index} is not the report of ${v.fingerprint} in ${where}`;
      if ((t.commit !== undefined || fourEyes) && (t.commit ?? null) !== (artifact.row.git_commit ?? null))
        return `the artifact's commit in ${where} is ${String(t.commit ?? null)} in the verdict but record ${t.artifact_log_index} says ${String(artifact.row.git_commit ?? null)}`;
      for (const a of t.attestations) {
        const record = named(a.log_index, 'attestation', `attestation '${a.name}' in ${where}`);
        if (typeof record === 'string') return record;
        const { row, data } = record;
        const carried = row.artifact_fingerprint;
        if (data.flow !== t.flow.name || data.trail !== t.trail.name || (carried !== null && carried !== undefined && carried !== v.fingerprint))
          return `record ${a.log_index} is not an attestation of ${where} about this artifact or its trail`;
        if (row.name !== a.name || row.type !== a.type || Boolean(Number(row.compliant)) !== a.compliant)
          return `attestation '${a.name}' is ${a.type}, ${a.compliant ? 'compliant' : 'non-compliant'} in the verdict but record ${a.log_index} says ${String(row.type)}, ${Number(row.compliant) ? 'compliant' : 'non-compliant'}`;
        if (
          (a.pull_requests !== undefined || fourEyes) &&
          row.type === 'pull_request' &&
          canonicalJson(a.pull_requests ?? null) !== canonicalJson(row.pull_requests ?? null)
        )
          return `the pull requests of attestation '${a.name}' in ${where} are not those of record ${a.log_index}`;
      }
    }
    const compliant = evaluations.every((e) => e.compliant);
    if (compliant !== v.compliant)
      return `its result is ${v.compliant ? 'compliant' : 'non-compliant'}, its evidence gives ${compliant ? 'compliant' : 'non-compliant'}`;
    const mismatch = evaluations.findIndex((e, i) => canonicalJson(e) !== canonicalJson(v.policy_evaluations[i]));
    if (mismatch !== -1 || evaluations.length !== v.policy_evaluations.length)
      return `the evaluation of policy '${v.policies[Math.max(mismatch, 0)]?.name ?? '?'}' is not what its rules give for its evidence`;
    return undefined;
  } catch (error) {
    return `cannot be judged again: ${(error as Error).message}`;
  }
}
