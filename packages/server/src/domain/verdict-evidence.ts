/**
 * Judgements made records (domain/verdict.ts): each fact with the leaf of the record it was read
 * from, for any number of judgements in three reads of the log, so that `assert artifact` and a
 * snapshot of a thousand artifacts make their verdicts the same way.
 */
import type { LatestPolicyVersion, StoreUses } from '../store/types.ts';
import type { GatheredPolicyFacts } from './policy-facts.ts';
import { verdictOf, type Verdict, type VerdictEvaluation } from './verdict.ts';

export const verdictEvidenceUses = ['logIndexesOf'] as const;

/** One judgement against policies: what was asked, the facts read and each policy's evaluation. */
export interface Judged {
  fingerprint: string;
  scope: Verdict['scope'];
  environment: string | null;
  flow: string | null;
  policies: readonly Pick<LatestPolicyVersion, 'id' | 'name' | 'version' | 'sha256'>[];
  gathered: GatheredPolicyFacts;
  /** The name it was judged under (`gathered.facts.artifact` unless it runs under another). */
  artifact: { name: string; fingerprint: string };
  policy_evaluations: VerdictEvaluation[];
}

/** The verdict record of each judgement, in order. */
export async function verdictsOf(store: StoreUses<typeof verdictEvidenceUses>, organizationId: number, judged: readonly Judged[]): Promise<Verdict[]> {
  if (!judged.length) return [];
  const reports = judged.flatMap((j) => j.gathered.reports);
  const [artifactLeaves, attestationLeaves, policyLeaves] = await Promise.all([
    store.logIndexesOf(organizationId, 'artifacts', [...new Set(reports.map((r) => r.artifact.id))]),
    store.logIndexesOf(organizationId, 'attestations', [...new Set(reports.flatMap((r) => r.attestationIds))]),
    store.logIndexesOf(organizationId, 'policy_versions', [...new Set(judged.flatMap((j) => j.policies.map((p) => p.id)))]),
  ]);
  const leaf = (leaves: Map<number, number>, id: number) => {
    const index = leaves.get(id);
    if (index === undefined) throw new Error('evidence without its log record');
    return index;
  };
  return judged.map((j) =>
    verdictOf({
      fingerprint: j.fingerprint,
      scope: j.scope,
      environment: j.environment,
      flow: j.flow,
      policies: j.policies.map((p) => ({ name: p.name, version: p.version, sha256: p.sha256, log_index: leaf(policyLeaves, p.id) })),
      artifact: j.artifact,
      trails: j.gathered.facts.trails.map((t, i) => {
        const report = j.gathered.reports[i]!;
        return {
          ...t,
          artifact_log_index: leaf(artifactLeaves, report.artifact.id),
          attestations: t.attestations.map((a, k) => ({ ...a, log_index: leaf(attestationLeaves, report.attestationIds[k]!) })),
        };
      }),
      compliant: j.policy_evaluations.every((e) => e.compliant),
      policy_evaluations: j.policy_evaluations,
    }),
  );
}
