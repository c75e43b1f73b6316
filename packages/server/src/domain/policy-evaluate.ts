/**
 * Judging one artifact by one environment policy: pure, so that `assert artifact`, a snapshot's
 * compliance and an auditor re-deriving a verdict offline all reach the same answer from the same
 * facts. Rules, resolutions and their names are Kosli's (`assertArtifact.go`, the policy docs).
 */
import { evaluateExpression, type Expression, type ExpressionContext } from './policy-expression.ts';
import type { AttestationRule, BooleanRule, PolicyModel } from './policy.ts';

/** An attestation as a policy reads it: on the artifact or on its trail. */
export interface AttestationFact {
  name: string;
  /** As stored: `generic`, `junit`, `custom:<name>`, `decision`, … */
  type: string;
  compliant: boolean;
  /** For a `decision` attestation: the control it decides. */
  for_control?: string | null;
  /** For a `pull_request` attestation: the pull requests it found (what `four-eyes` reads). */
  pull_requests?: PullRequestFact[];
}

/** A pull request as `four-eyes` reads it: its author, who approved it, and its commits' authors. */
export interface PullRequestFact {
  author: string;
  merge_commit: string;
  /** The user names of approvals (a review whose state is APPROVED, or an approver named without a state). */
  approvers: string[];
  commits: Array<{ sha1: string; author: string }>;
}

/** One trail the artifact was reported in (its provenance), with what the trail holds. */
export interface TrailFact {
  flow: { name: string; tags: Record<string, string> };
  trail: { name: string; compliant: boolean };
  /** The artifact's commit as its report in this trail says (null: none); what `four-eyes` judges. */
  commit?: string | null;
  /** The artifact's attestations and the trail's, latest of each name. */
  attestations: AttestationFact[];
}

/**
 * What a policy is judged on. `trails` empty: the artifact has no provenance (no flow reported
 * it). With several trails, a rule is satisfied when one of them satisfies it.
 */
export interface PolicyFacts {
  artifact: { name: string; fingerprint: string };
  trails: TrailFact[];
}

export type ResolutionType =
  | 'rule_satisfied'
  | 'rule_not_applicable'
  | 'no_provenance'
  | 'non_compliant_in_trail'
  | 'missing_attestation'
  | 'non_compliant_attestation'
  /** `four-eyes`: no pull request of the trail has the artifact's commit. */
  | 'missing_pull_request'
  /** `four-eyes`: pull requests have the commit, but none is approved by someone other than each of its authors. */
  | 'self_approved';

export interface Resolution {
  type: ResolutionType;
  context: { flow_name?: string; trail_name?: string; for_control?: string; exception?: string; condition?: string; commit?: string };
}

export type RuleDefinition =
  | { type: 'provenance'; definition: { required: boolean; exceptions: string[] } }
  | { type: 'trail-compliance'; definition: { required: boolean; exceptions: string[] } }
  | { type: 'four-eyes'; definition: { required: boolean; exceptions: string[] } }
  | { type: 'attestation'; definition: { name: string; type: string; if: string | null; must_be_compliant: boolean; for_control: string | null } };

/** A rule's verdict as `assert artifact` answers it: ignored (not required, waived, its `if` false) or satisfied. */
export interface RuleEvaluation {
  rule: RuleDefinition;
  ignored: boolean;
  satisfied: boolean;
  resolutions: Resolution[];
}

export interface PolicyEvaluation {
  compliant: boolean;
  status: 'COMPLIANT' | 'NON-COMPLIANT';
  rule_evaluations: RuleEvaluation[];
}

/** Judges the artifact by every rule of the policy; throws `PolicyExpressionError` for an expression that is not a condition. */
export function evaluatePolicy(policy: PolicyModel, facts: PolicyFacts): PolicyEvaluation {
  const { provenance, 'trail-compliance': trailCompliance, attestations } = policy.artifacts;
  const rule_evaluations = [
    booleanRule(facts, { type: 'provenance', definition: definitionOf(provenance) }, provenance, () => undefined),
    booleanRule(facts, { type: 'trail-compliance', definition: definitionOf(trailCompliance) }, trailCompliance, (t) =>
      t.trail.compliant ? undefined : 'non_compliant_in_trail',
    ),
    ...attestations.map((rule) => attestationRule(facts, rule)),
  ];
  const fourEyes = policy.trailproof?.['four-eyes'];
  if (fourEyes) rule_evaluations.push(booleanRule(facts, { type: 'four-eyes', definition: definitionOf(fourEyes) }, fourEyes, fourEyesProblem));
  const compliant = rule_evaluations.every((r) => r.ignored || r.satisfied);
  return { compliant, status: compliant ? 'COMPLIANT' : 'NON-COMPLIANT', rule_evaluations };
}

const definitionOf = (rule: BooleanRule) => ({ required: rule.required, exceptions: rule.exceptions.map((e) => e.text) });

const contextOf = (facts: PolicyFacts, trail: TrailFact | undefined): ExpressionContext => ({ flow: trail?.flow ?? null, artifact: facts.artifact });
const whereIn = (t: TrailFact) => ({ flow_name: t.flow.name, trail_name: t.trail.name });
const notApplicable = (rule: RuleDefinition, context: Resolution['context'] = {}): RuleEvaluation => ({
  rule,
  ignored: true,
  satisfied: false,
  resolutions: [{ type: 'rule_not_applicable', context }],
});

/** The first exception true for the artifact in this trail (or without provenance). */
const waivedBy = (exceptions: Expression[], context: ExpressionContext) => exceptions.find((e) => evaluateExpression(e, context));

/** Provenance and trail compliance: required, waived by an exception, or judged in each trail by `problem`. */
function booleanRule(
  facts: PolicyFacts,
  rule: RuleDefinition,
  definition: BooleanRule,
  problem: (trail: TrailFact) => ResolutionType | undefined,
): RuleEvaluation {
  const where = (t: TrailFact) => ({ ...whereIn(t), ...(rule.type === 'four-eyes' && t.commit ? { commit: t.commit } : {}) });
  if (!definition.required) return notApplicable(rule);
  if (!facts.trails.length) {
    const exception = waivedBy(definition.exceptions, contextOf(facts, undefined));
    if (exception) return notApplicable(rule, { exception: exception.text });
    return { rule, ignored: false, satisfied: false, resolutions: [{ type: 'no_provenance', context: {} }] };
  }
  const failures: Resolution[] = [];
  for (const trail of facts.trails) {
    const exception = waivedBy(definition.exceptions, contextOf(facts, trail));
    if (exception) return notApplicable(rule, { ...whereIn(trail), exception: exception.text });
    const type = problem(trail);
    if (!type) return { rule, ignored: false, satisfied: true, resolutions: [{ type: 'rule_satisfied', context: where(trail) }] };
    failures.push({ type, context: where(trail) });
  }
  return { rule, ignored: false, satisfied: false, resolutions: failures };
}

/** An attestation rule: its `if` decides whether it applies in a trail; a matching attestation (compliant if it must be) satisfies it. */
function attestationRule(facts: PolicyFacts, definition: AttestationRule): RuleEvaluation {
  const rule: RuleDefinition = {
    type: 'attestation',
    definition: {
      name: definition.name,
      type: definition.type,
      if: definition.if?.text ?? null,
      must_be_compliant: definition.must_be_compliant,
      for_control: definition.for_control,
    },
  };
  const control = definition.for_control ? { for_control: definition.for_control } : {};
  if (!facts.trails.length) {
    if (definition.if && !evaluateExpression(definition.if, contextOf(facts, undefined))) return notApplicable(rule, { condition: definition.if.text });
    return { rule, ignored: false, satisfied: false, resolutions: [{ type: 'no_provenance', context: control }] };
  }
  const failures: Resolution[] = [];
  let applies = false;
  for (const trail of facts.trails) {
    if (definition.if && !evaluateExpression(definition.if, contextOf(facts, trail))) continue;
    applies = true;
    const matching = trail.attestations.filter((a) => matches(definition, a));
    const context = { ...whereIn(trail), ...control };
    if (!matching.length) failures.push({ type: 'missing_attestation', context });
    else if (definition.must_be_compliant && !matching.every((a) => a.compliant)) failures.push({ type: 'non_compliant_attestation', context });
    else return { rule, ignored: false, satisfied: true, resolutions: [{ type: 'rule_satisfied', context }] };
  }
  if (!applies) return notApplicable(rule, { condition: definition.if!.text });
  return { rule, ignored: false, satisfied: false, resolutions: failures };
}

function matches(rule: AttestationRule, attestation: AttestationFact): boolean {
  if (rule.name !== '*' && rule.name !== attestation.name) return false;
  if (rule.type !== '*' && rule.type !== attestation.type) return false;
  return rule.for_control === null || attestation.for_control === rule.for_control;
}

/**
 * Four eyes in one trail: some pull request of its attestations has the artifact's commit (as its
 * merge commit or one of its commits), and each author of that pull request (its own and its
 * commits') has an approval from someone else. User names are compared without case, as Git
 * hosts treat them.
 */
function fourEyesProblem(trail: TrailFact): ResolutionType | undefined {
  const commit = trail.commit;
  const covering = commit
    ? trail.attestations.flatMap((a) => a.pull_requests ?? []).filter((pr) => pr.merge_commit === commit || pr.commits.some((c) => c.sha1 === commit))
    : [];
  if (!covering.length) return 'missing_pull_request';
  return covering.some(approvedByOthers) ? undefined : 'self_approved';
}

function approvedByOthers(pr: PullRequestFact): boolean {
  const approvers = pr.approvers.map((a) => a.toLowerCase());
  const authors = new Set([pr.author, ...pr.commits.map((c) => c.author)].filter((a) => a !== '').map((a) => a.toLowerCase()));
  return approvers.length > 0 && [...authors].every((author) => approvers.some((approver) => approver !== author));
}
