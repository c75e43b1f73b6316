/**
 * Each kind of attestation as a person reads it, and why one is not compliant, from its stored
 * data: a pull request's link, author, approvers and merge commit; a custom type's data, each jq
 * rule with its result and the type's version; a JUnit report's failures; a generic one's claim;
 * and the scanners', decisions', overrides' and SBOMs' (evidence-kinds.tsx). One entry of `attestationKinds` per type (custom types share `custom`): a new type adds its own
 * entry here and every page that shows attestations shows it.
 */
import { evidenceKinds } from './evidence-kinds.tsx';
import { type AttestationKind, ExternalLink, type KindInput, list, record, str } from './kind-parts.tsx';
import { Time } from './time.tsx';

export type { AttestationKind, KindInput } from './kind-parts.tsx';

/** Characters of an attestation's JSON shown on a page; the API's get attestation reads the rest. */
export const maxJsonShown = 20_000;

const cut = (text: string, length: number) =>
  length <= maxJsonShown
    ? text
    : `${text.slice(0, maxJsonShown)}\n… ${length - maxJsonShown} more characters (GET /attestations/{org}?attestation_id= reads them all)`;

/** A JSON value as indented text, cut at `maxJsonShown` characters with how much was left out. */
export function shownJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  return cut(text, text.length);
}

/**
 * A custom attestation's document: from its whole data (`attestation_data`), or from a glance
 * (store `attestationGlances`: its first characters as stored and its length), indented when whole.
 */
function shownDocument(data: Record<string, unknown>): string {
  if (typeof data.attestation_data_text !== 'string') return shownJson(data.attestation_data ?? null);
  const length = Number(data.attestation_data_length) || data.attestation_data_text.length;
  return length <= maxJsonShown ? shownJson(JSON.parse(data.attestation_data_text)) : cut(data.attestation_data_text, length);
}

/** An approver as the CLI sends it: a user name, or `{username, state, timestamp}`. */
function approverText(approver: unknown): string {
  if (typeof approver === 'string') return approver;
  const a = record(approver);
  const state = str(a.state);
  return `${str(a.username) || 'unknown'}${state ? ` (${state.toLowerCase()})` : ''}`;
}

const pullRequest: AttestationKind = {
  details({ a, now }) {
    const data = record(a.data);
    const prs = list(data.pull_requests).map(record);
    const provider = str(data.git_provider) || 'git';
    // None found: `why` says so.
    if (!prs.length) return null;
    return (
      <div class="kind">
        <h4>
          {prs.length} {provider} pull {prs.length === 1 ? 'request' : 'requests'}
        </h4>
        <ul>
          {prs.map((pr) => {
            const approvers = list(pr.approvers).map(approverText);
            const merge = str(pr.merge_commit);
            return (
              <li class="pull-request">
                <ExternalLink href={pr.url}>{str(pr.title) || str(pr.url) || 'pull request'}</ExternalLink>{' '}
                <span class="badge none">{str(pr.state) || '?'}</span>
                <div>
                  Author: <bdi>{str(pr.author) || 'not given'}</bdi>
                  {pr.created_at ? (
                    <>
                      , opened <Time at={Number(pr.created_at)} now={now} />
                    </>
                  ) : null}
                </div>
                <div>Approvers: {approvers.length ? <bdi>{approvers.join(', ')}</bdi> : <span class="muted">none</span>}</div>
                <div>
                  Merge commit: {merge ? <code title={merge}>{merge.slice(0, 12)}</code> : <span class="muted">none</span>}
                  {pr.head_ref || pr.base_ref ? (
                    <span class="muted">
                      {' '}
                      (<bdi>{str(pr.head_ref) || '?'}</bdi> → <bdi>{str(pr.base_ref) || '?'}</bdi>)
                    </span>
                  ) : null}
                  , {list(pr.commits).length} commits
                </div>
              </li>
            );
          })}
        </ul>
      </div>
    );
  },
  why({ a }) {
    const data = record(a.data);
    return list(data.pull_requests).length ? 'it was stored as not compliant' : `no ${str(data.git_provider) || 'git'} pull request was found for the commit`;
  },
};

interface RuleResult {
  rule: string;
  passed: boolean;
  output: string | null;
  error: string | null;
}

const evaluationOf = (a: KindInput['a']) => {
  const e = record(record(a.data).evaluation);
  return {
    version: Number(e.type_version) || null,
    sha256: str(e.type_sha256),
    schemaErrors: list(e.schema_errors).map(str),
    rules: list(e.rules).map((r) => record(r) as unknown as RuleResult),
    judged: Object.keys(e).length > 0,
  };
};

const custom: AttestationKind = {
  details({ a }) {
    const data = record(a.data);
    const e = evaluationOf(a);
    return (
      <div class="kind">
        <p>
          Type <bdi>{str(data.type_name)}</bdi>
          {e.version ? `, judged by version ${e.version}` : ', not judged'}
          {e.sha256 ? <span class="mono muted" title={e.sha256}>{` (SHA-256 ${e.sha256.slice(0, 12)})`}</span> : null}
        </p>
        {e.schemaErrors.length ? (
          <>
            <h4>Does not match the type's schema</h4>
            <ul class="failed">
              {e.schemaErrors.slice(0, 50).map((error) => (
                <li>{error}</li>
              ))}
            </ul>
          </>
        ) : e.judged ? (
          <p>Matches the type's schema.</p>
        ) : null}
        {e.rules.length ? (
          <table class="rules">
            <thead>
              <tr>
                <th scope="col">Rule (jq)</th>
                <th scope="col">Result</th>
                <th scope="col">Output</th>
              </tr>
            </thead>
            <tbody>
              {e.rules.map((r) => (
                <tr class={r.passed ? undefined : 'failed'}>
                  <td>
                    <code>{str(r.rule)}</code>
                  </td>
                  <td>{r.passed ? '✓ true' : r.error ? '✗ no verdict' : '✗ false'}</td>
                  <td>{r.error ? str(r.error) : str(r.output)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <h4>Data</h4>
        <pre dir="auto">{shownDocument(data)}</pre>
      </div>
    );
  },
  why({ a }) {
    const e = evaluationOf(a);
    if (!e.judged) return 'it was not judged by its type';
    if (e.schemaErrors.length) return `the data does not match the type's schema: ${e.schemaErrors[0]}`;
    const failed = e.rules.find((r) => !r.passed);
    if (failed) return failed.error ? `rule ${failed.rule} gave no verdict: ${failed.error}` : `rule ${failed.rule} is false (${failed.output ?? 'no output'})`;
    return 'it was stored as not compliant';
  },
};

const junit: AttestationKind = {
  // The trail page shows the suites and failed cases (trail-parts.tsx).
  details: () => null,
  why({ a }) {
    const suites = list(record(a.data).junit_results).map(record);
    const failures = suites.reduce((n, s) => n + (Number(s.failures) || 0), 0);
    const errors = suites.reduce((n, s) => n + (Number(s.errors) || 0), 0);
    return failures + errors ? `${failures} tests failed and ${errors} had errors` : 'it was stored as not compliant';
  },
};

const generic: AttestationKind = {
  details: () => null,
  why: () => 'its sender reported it as not compliant (is_compliant: false)',
};

/** The view of each type; a custom type's (`custom:<name>`) is `custom`, an override's (`override:<type>`) is `override`. */
export const attestationKinds: Readonly<Record<string, AttestationKind>> = { pull_request: pullRequest, custom, junit, generic, ...evidenceKinds };

const kindOf = (type: string): AttestationKind | undefined =>
  attestationKinds[type.startsWith('custom:') ? 'custom' : type.startsWith('override:') ? 'override' : type];

/** Why a stored attestation is not compliant; null when it is. */
export function whyNotCompliant(input: KindInput): string | null {
  if (input.a.compliant) return null;
  return kindOf(input.a.type)?.why(input) ?? 'it was stored as not compliant';
}

/** What the attestation attests, as its kind shows it, and why it is not compliant when it is not. */
export function AttestationKindView({ a, now }: KindInput) {
  const kind = kindOf(a.type);
  const why = whyNotCompliant({ a, now });
  return (
    <>
      {why ? <p class="why">Not compliant: {why}.</p> : null}
      {kind?.details({ a, now }) ?? null}
    </>
  );
}
