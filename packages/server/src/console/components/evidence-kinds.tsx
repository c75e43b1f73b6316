/**
 * The views of Snyk (findings by severity), Sonar (the quality gate and its conditions), Jira (the
 * issues found and missing), decisions (the control), overrides (what was overridden, how and why)
 * and SBOMs (format, subject, package count, and what the server read of the document), each with
 * why one is not compliant. Every value is stored text shown as text; only http(s) URLs link.
 */
import { type AttestationKind, ExternalLink, type KindInput, list, record, str } from './kind-parts.tsx';

/** Findings listed per Snyk attestation, conditions per Sonar gate, issues per Jira attestation. */
const shownItems = 50;
/** Characters of a finding's message shown. */
const shownMessage = 300;

const severities = ['high', 'medium', 'low'] as const;
const count = (value: unknown) => (Number.isFinite(Number(value)) ? Number(value) : 0);
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}…`);

/** `attestation_data` whole, or from a glance's text when it holds all of it (attestation-kinds.tsx, store `attestationGlances`). */
function attestationData(data: Record<string, unknown>): Record<string, unknown> {
  if (data.attestation_data !== undefined) return record(data.attestation_data);
  const text = data.attestation_data_text;
  if (typeof text !== 'string' || (Number(data.attestation_data_length) || text.length) > text.length) return {};
  try {
    return record(JSON.parse(text));
  } catch {
    return {};
  }
}

function snykTotals(a: KindInput['a']) {
  const runs = list(record(record(a.data).snyk_results).results).map(record);
  const totals = { high: 0, medium: 0, low: 0 };
  for (const run of runs) for (const s of severities) totals[s] += count(run[`${s}_count`]);
  return { runs, totals };
}

const snyk: AttestationKind = {
  details({ a }) {
    const tool = record(record(record(a.data).snyk_results).tool);
    const { runs, totals } = snykTotals(a);
    const findings = runs.flatMap((run) =>
      severities.flatMap((s) => list(run[s]).map((v) => ({ ...record(v), severity: s }) as Record<string, unknown> & { severity: string })),
    );
    return (
      <div class="kind">
        <h4>
          <bdi>{[str(tool.name) || 'Snyk', str(tool.version)].filter(Boolean).join(' ')}</bdi>: {runs.length} {runs.length === 1 ? 'run' : 'runs'}
        </h4>
        <table class="severities">
          <thead>
            <tr>
              {severities.map((s) => (
                <th scope="col">{s}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              {severities.map((s) => (
                <td class={totals[s] ? 'failed' : undefined} data-severity={s}>
                  {totals[s]}
                </td>
              ))}
            </tr>
          </tbody>
        </table>
        {findings.length ? (
          <ul class="findings">
            {findings.slice(0, shownItems).map((f) => (
              <li>
                <span class="badge bad">{f.severity}</span> <code>{str(f.id)}</code> <bdi>{clip(str(f.message), shownMessage)}</bdi>
                {list(f.locations).length ? (
                  <span class="muted">
                    {' '}
                    (
                    {list(f.locations)
                      .map((l) => str(record(l).uri))
                      .join(', ')}
                    )
                  </span>
                ) : null}
              </li>
            ))}
            {findings.length > shownItems ? <li class="muted">… {findings.length - shownItems} more (the SARIF file is the attachment)</li> : null}
          </ul>
        ) : null}
      </div>
    );
  },
  why({ a }) {
    const { totals } = snykTotals(a);
    return totals.high + totals.medium + totals.low
      ? `Snyk found ${totals.high} high, ${totals.medium} medium and ${totals.low} low severity vulnerabilities`
      : 'it was stored as not compliant';
  },
};

const sonarGate = (a: KindInput['a']) => {
  const results = record(record(a.data).sonar_results);
  const gate = results.qualityGate === undefined ? null : record(results.qualityGate);
  return { results, gate, conditions: list(gate?.conditions).map(record) };
};
const conditionText = (c: Record<string, unknown>) => `${str(c.metric)} ${str(c.value) || '?'} (${str(c.operator)} ${str(c.errorThreshold)})`;

const sonar: AttestationKind = {
  details({ a }) {
    const { results, gate, conditions } = sonarGate(a);
    const project = record(results.project);
    return (
      <div class="kind">
        <p>
          Project <ExternalLink href={project.url}>{str(project.name) || str(project.key) || 'not named'}</ExternalLink>, quality gate{' '}
          <span class={`badge ${str(gate?.status) === 'OK' ? 'ok' : 'bad'}`}>{gate ? str(gate.status) || '?' : 'none'}</span>
          {results.revision ? (
            <>
              , revision <code>{str(results.revision).slice(0, 12)}</code>
            </>
          ) : null}
          {results.analysedAt ? <>, analysed {str(results.analysedAt)}</> : null}
        </p>
        {conditions.length ? (
          <table class="conditions">
            <thead>
              <tr>
                <th scope="col">Condition</th>
                <th scope="col">Value</th>
                <th scope="col">Threshold</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {conditions.slice(0, shownItems).map((c) => (
                <tr class={str(c.status) === 'OK' ? undefined : 'failed'}>
                  <td>
                    <bdi>{str(c.metric)}</bdi>
                  </td>
                  <td>{str(c.value)}</td>
                  <td>
                    {str(c.operator)} {str(c.errorThreshold)}
                  </td>
                  <td>{str(c.status)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </div>
    );
  },
  why({ a }) {
    const { gate, conditions } = sonarGate(a);
    if (!gate) return 'SonarQube reported no quality gate for the analysis';
    const failed = conditions.filter((c) => str(c.status) !== 'OK');
    return `the quality gate is ${str(gate.status) || 'not OK'}${failed.length ? `: ${failed.slice(0, 5).map(conditionText).join(', ')}` : ''}`;
  },
};

const jiraIssues = (a: KindInput['a']) => list(record(a.data).jira_results).map(record);

const jira: AttestationKind = {
  details({ a }) {
    const issues = jiraIssues(a);
    if (!issues.length) return null;
    return (
      <div class="kind">
        <h4>{issues.length} Jira issues referenced</h4>
        <ul class="issues">
          {issues.slice(0, shownItems).map((issue) => {
            const fields = record(issue.issue_fields);
            return (
              <li data-issue={str(issue.issue_id)}>
                <ExternalLink href={issue.issue_url}>{str(issue.issue_id) || 'issue'}</ExternalLink>{' '}
                {issue.issue_exists === true ? <span class="badge ok">found</span> : <span class="badge bad">missing</span>}
                {fields.summary ? <bdi> {str(fields.summary)}</bdi> : null}
                {record(fields.status).name ? <span class="muted"> ({str(record(fields.status).name)})</span> : null}
              </li>
            );
          })}
        </ul>
      </div>
    );
  },
  why({ a }) {
    const issues = jiraIssues(a);
    if (!issues.length) return 'the commit and branch reference no Jira issue';
    const missing = issues.filter((i) => i.issue_exists !== true).map((i) => str(i.issue_id));
    return missing.length ? `Jira has no issue ${missing.slice(0, 10).join(', ')}` : 'it was stored as not compliant';
  },
};

const decision: AttestationKind = {
  details({ a }) {
    const data = record(a.data);
    return (
      <div class="kind">
        <p>
          Decision on control <code>{str(data.control) || 'not named'}</code>: {attestationData(data).is_compliant === true ? 'compliant' : 'not compliant'}
        </p>
      </div>
    );
  },
  why: ({ a }) => `the decision on control ${str(record(a.data).control) || 'not named'} is not compliant`,
};

const verdict = (compliant: unknown) => (compliant === true ? 'compliant' : 'not compliant');

const override: AttestationKind = {
  details({ a }) {
    const data = record(a.data);
    const id = str(data.overridden_attestation_id);
    return (
      <div class="kind override">
        <p>
          Overrides {id ? <a href={`#attestation-${encodeURIComponent(id)}`}>attestation #{id}</a> : 'an attestation'} (
          <bdi>{str(data.original_attestation_type)}</bdi>), which was {verdict(data.overridden_compliance)}: now {verdict(data.new_compliance_status)}.
        </p>
        <h4>Reason</h4>
        <p class="reason" dir="auto">
          {str(data.reason)}
        </p>
      </div>
    );
  },
  why: ({ a }) => `it was overridden as not compliant: ${clip(str(record(a.data).reason), shownMessage)}`,
};

const sbom: AttestationKind = {
  details({ a }) {
    const data = record(a.data);
    const sent = attestationData(data);
    const document = record(sent.document);
    const subject = record(document.subject);
    const read = record(data.sbom_verification);
    return (
      <div class="kind">
        <p>
          <code>{str(sent.format) || 'unknown format'}</code>
          {subject.name ? (
            <>
              {' '}
              of <bdi>{[str(subject.name), str(subject.version)].filter(Boolean).join(' ')}</bdi>
            </>
          ) : null}
          {document.package_count !== undefined ? `: ${count(document.package_count)} packages` : ''}
          {list(document.tools).length ? (
            <>
              , made by <bdi>{list(document.tools).map(str).join(', ')}</bdi>
            </>
          ) : null}
          {document.created_at ? `, ${str(document.created_at)}` : ''}
        </p>
        <p>
          Read by the server:{' '}
          {read.read === true
            ? `${str(read.format)}, ${read.package_count === null ? 'packages not counted' : `${count(read.package_count)} packages`}`
            : `not read (${str(read.reason) || 'no reading kept'})`}
        </p>
        <p class="mono muted">SHA-256 of the file {str(sent.original_fingerprint)}</p>
      </div>
    );
  },
  why({ a }) {
    const differences = list(record(record(a.data).sbom_verification).differences).map(str);
    return differences.length ? `the document does not bear out the summary sent: ${differences.join('; ')}` : 'it was stored as not compliant';
  },
};

/** The views of these types; an override of any type (`override:<type>`) is `override`. */
export const evidenceKinds: Readonly<Record<string, AttestationKind>> = { snyk, sonar, jira, decision, override, sbom };
