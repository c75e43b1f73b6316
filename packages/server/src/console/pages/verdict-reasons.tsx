/**
 * A verdict's reasons in words: each rule of each policy, whether it was satisfied, ignored or
 * failed, and why (the trail it was judged in, the attestations that satisfied it or did not,
 * the exception that waived it, the condition that made it not apply), each piece of evidence
 * linked to its record in the log. Everything comes from the recorded verdict's own text, so the
 * page shows what was judged, not what the evidence says today.
 */
import type { Resolution, RuleDefinition, RuleEvaluation } from '../../domain/policy-evaluate.ts';
import type { Verdict, VerdictTrail } from '../../domain/verdict.ts';
import { Compliance } from '../components/compliance.tsx';
import { orgHref, trailPageHref, type LinkBase } from '../links.ts';

/** The console page of a leaf of the organisation's log: its record and inclusion proof. */
export const logEntryHref = (at: LinkBase, index: number) => orgHref(at, 'log', index);

export function LogLink({ at, index }: { at: LinkBase; index: number | null | undefined }) {
  if (index === null || index === undefined) return <span class="muted">not recorded</span>;
  return <a href={logEntryHref(at, index)}>log #{index}</a>;
}

/** What a rule asks, in words. */
export function describeRule(rule: RuleDefinition): string {
  if (rule.type === 'provenance') return rule.definition.required ? 'provenance required: a flow reported the artifact' : 'provenance not required';
  if (rule.type === 'trail-compliance')
    return rule.definition.required ? 'trail compliance required: a trail of the artifact is compliant' : 'trail compliance not required';
  if (rule.type === 'four-eyes')
    return rule.definition.required
      ? 'four eyes required: the commit is in a pull request approved by someone other than each of its authors'
      : 'four eyes not required';
  const d = rule.definition;
  const what = `${d.type === '*' ? 'an attestation of any type' : `a ${d.type} attestation`} ${d.name === '*' ? 'of any name' : `named '${d.name}'`}`;
  return `${what}${d.must_be_compliant ? ', compliant' : ''}${d.for_control ? `, for control '${d.for_control}'` : ''}`;
}

const outcomes: Record<Resolution['type'], string> = {
  rule_satisfied: 'satisfied',
  rule_not_applicable: 'not applicable',
  no_provenance: 'no flow reported the artifact',
  non_compliant_in_trail: 'the trail is not compliant',
  missing_attestation: 'no matching attestation',
  non_compliant_attestation: 'a matching attestation is not compliant',
  missing_pull_request: 'no pull request has the commit',
  self_approved: 'no pull request with the commit is approved by someone other than its authors',
};

/** The attestations of the resolution's trail that an attestation rule matched (for four eyes, its pull request attestations): the evidence it was satisfied or failed by. */
function matchedEvidence(rule: RuleDefinition, trail: VerdictTrail | undefined) {
  if (!trail) return [];
  if (rule.type === 'four-eyes') return trail.attestations.filter((a) => a.pull_requests !== undefined);
  if (rule.type !== 'attestation') return [];
  const d = rule.definition;
  return trail.attestations.filter(
    (a) => (d.name === '*' || d.name === a.name) && (d.type === '*' || d.type === a.type) && (d.for_control === null || a.for_control === d.for_control),
  );
}

function Reason({ at, verdict, rule, resolution }: { at: LinkBase; verdict: Verdict; rule: RuleDefinition; resolution: Resolution }) {
  const { flow_name, trail_name, exception, condition, for_control, commit } = resolution.context;
  const trail = verdict.trails.find((t) => t.flow.name === flow_name && t.trail.name === trail_name);
  const evidence = matchedEvidence(rule, trail);
  return (
    <li data-resolution={resolution.type}>
      <strong>{outcomes[resolution.type] ?? resolution.type}</strong>
      {flow_name !== undefined && trail_name !== undefined ? (
        <>
          {' in '}
          <a href={trailPageHref(at, flow_name, trail_name)}>
            {flow_name}/{trail_name}
          </a>
          {trail ? (
            <>
              {' (report: '}
              <LogLink at={at} index={trail.artifact_log_index} />)
            </>
          ) : null}
        </>
      ) : null}
      {for_control ? ` (control '${for_control}')` : null}
      {commit ? (
        <>
          {' commit '}
          <code>{commit}</code>
        </>
      ) : null}
      {exception ? (
        <>
          {'; waived by the exception '}
          <code class="expression">{`\${{ ${exception} }}`}</code>
        </>
      ) : null}
      {condition ? (
        <>
          {'; its condition '}
          <code class="expression">{`\${{ ${condition} }}`}</code>
          {' is false'}
        </>
      ) : null}
      {evidence.length ? (
        <ul class="evidence">
          {evidence.map((a) => (
            <li>
              {a.type} '{a.name}' {a.compliant ? 'compliant' : 'non-compliant'} (<LogLink at={at} index={a.log_index} />)
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function ruleOutcome(r: RuleEvaluation) {
  if (r.ignored) return <span class="badge none">– IGNORED</span>;
  return <Compliance compliant={r.satisfied} label={r.satisfied ? 'SATISFIED' : 'FAILED'} />;
}

/** Every policy's rules and why each came out as it did. */
export function VerdictReasons({ at, verdict }: { at: LinkBase; verdict: Verdict }) {
  return (
    <>
      {verdict.policy_evaluations.map((evaluation) => (
        <section class="policy-evaluation" data-policy={evaluation.policy_name} aria-label={`Policy ${evaluation.policy_name}`}>
          <h2>
            Policy <a href={`${orgHref(at, 'policies', evaluation.policy_name)}#v${evaluation.policy_version}`}>{evaluation.policy_name}</a> v
            {evaluation.policy_version} <Compliance compliant={evaluation.compliant} />
          </h2>
          <table class="rules">
            <caption class="visually-hidden">Rules of {evaluation.policy_name}</caption>
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Outcome</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {evaluation.rule_evaluations.map((r) => (
                <tr data-rule={r.rule.type}>
                  <td>{describeRule(r.rule)}</td>
                  <td>{ruleOutcome(r)}</td>
                  <td>
                    <ul class="reasons">
                      {r.resolutions.map((resolution) => (
                        <Reason at={at} verdict={verdict} rule={r.rule} resolution={resolution} />
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </>
  );
}

/** The facts the verdict read, trail by trail, each linked to its record. */
export function VerdictEvidence({ at, verdict }: { at: LinkBase; verdict: Verdict }) {
  if (!verdict.trails.length) return <p>No flow reported this artifact: it was judged without provenance.</p>;
  return (
    <table class="verdict-evidence">
      <caption class="visually-hidden">The evidence the verdict read</caption>
      <thead>
        <tr>
          <th scope="col">Trail</th>
          <th scope="col">Trail compliance</th>
          <th scope="col">Attestations read</th>
        </tr>
      </thead>
      <tbody>
        {verdict.trails.map((t) => (
          <tr>
            <td>
              <a href={trailPageHref(at, t.flow.name, t.trail.name)}>
                {t.flow.name}/{t.trail.name}
              </a>{' '}
              (<LogLink at={at} index={t.artifact_log_index} />)
            </td>
            <td>
              <Compliance compliant={t.trail.compliant} />
            </td>
            <td>
              {t.attestations.length ? (
                <ul class="evidence">
                  {t.attestations.map((a) => (
                    <li>
                      {a.type} '{a.name}' {a.compliant ? 'compliant' : 'non-compliant'} (<LogLink at={at} index={a.log_index} />)
                    </li>
                  ))}
                </ul>
              ) : (
                <span class="muted">none</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
