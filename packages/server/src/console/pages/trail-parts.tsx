/** Parts of the trail page: what the template expects against what was attested, and one attestation in full. */
import type { AttestationViewBody, TrailSummaryBody } from '@trailproof/schema';
import { Compliance } from '../components/compliance.tsx';
import { Facts, factText, MaybeLink } from '../components/git.tsx';
import { Time } from '../components/time.tsx';
import type { FailedCases } from '../junit-cases.ts';

type Status = TrailSummaryBody['compliance_status']['attestations_statuses'][number];

/** One row per requirement and per attestation outside the template, trail-level first, then by artifact. */
export function Expectations({ compliance }: { compliance: TrailSummaryBody['compliance_status'] }) {
  const rows: Array<{ scope: string; status: Status }> = [
    ...compliance.attestations_statuses.map((status) => ({ scope: 'trail', status })),
    ...Object.entries(compliance.artifacts_statuses).flatMap(([artifact, entry]) =>
      entry.attestations_statuses.map((status) => ({ scope: `artifact ${artifact}`, status })),
    ),
  ];
  if (!rows.length) return <p class="muted">The template asks for nothing and nothing was attested.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>For</th>
          <th>Attestation</th>
          <th>Type</th>
          <th>Status</th>
          <th>Compliance</th>
          <th>Why</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ scope, status }) => (
          <tr>
            <td>{scope}</td>
            <td>{status.attestation_id ? <a href={`#attestation-${status.attestation_id}`}>{status.attestation_name}</a> : status.attestation_name}</td>
            <td>{status.attestation_type ?? '–'}</td>
            <td>{status.status === 'MISSING' ? 'MISSING' : status.unexpected ? 'ATTESTED (not in the template)' : 'ATTESTED'}</td>
            <td>
              <Compliance compliant={status.is_compliant} />
            </td>
            <td>{status.reason ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** An attestation with everything it carries; `download` is the console's link to its attachment. */
export function AttestationDetails({ a, now, download, failed }: { a: AttestationViewBody; now: number; download?: string; failed?: FailedCases }) {
  return (
    <article id={`attestation-${a.attestation_id}`}>
      <h3>
        {a.attestation_name}{' '}
        <span class="muted">
          ({a.attestation_type}, #{a.attestation_id})
        </span>{' '}
        <Compliance compliant={a.is_compliant} />{' '}
        {a.is_latest ? <span class="badge ok">LATEST: counts</span> : <span class="badge none">EARLIER: replaced by a later one</span>}
      </h3>
      <dl class="facts">
        <dt>stored</dt>
        <dd>
          <Time at={a.created_at} now={now} />
        </dd>
        <dt>created_by</dt>
        <dd>{a.created_by ?? 'not recorded'}</dd>
        {a.artifact_fingerprint ? (
          <>
            <dt>artifact fingerprint</dt>
            <dd class="mono">{a.artifact_fingerprint}</dd>
          </>
        ) : null}
        {a.target_artifacts.length ? (
          <>
            <dt>for artifacts</dt>
            <dd>{a.target_artifacts.join(', ')}</dd>
          </>
        ) : null}
        {a.description ? (
          <>
            <dt>description</dt>
            <dd>{a.description}</dd>
          </>
        ) : null}
        {a.origin_url ? (
          <>
            <dt>origin_url</dt>
            <dd>
              <MaybeLink href={a.origin_url}>{a.origin_url}</MaybeLink>
            </dd>
          </>
        ) : null}
        {a.attachment ? (
          <>
            <dt>attachment</dt>
            <dd>
              {download ? (
                <a href={download} download={a.attachment.name}>
                  Download {a.attachment.name}
                </a>
              ) : (
                a.attachment.name
              )}{' '}
              ({a.attachment.size} bytes)
              <div class="mono">SHA-256 {a.attachment.sha256}</div>
            </dd>
          </>
        ) : null}
      </dl>
      {a.junit_results && a.totals ? <JunitResults a={a} failed={failed} /> : null}
      {a.git_commit_info ? (
        <>
          <h4>git_commit_info</h4>
          <Facts facts={a.git_commit_info as Record<string, unknown>} />
        </>
      ) : null}
      {a.external_urls ? (
        <>
          <h4>external_urls</h4>
          <Facts facts={a.external_urls as Record<string, unknown>} />
        </>
      ) : null}
      {a.annotations ? (
        <>
          <h4>annotations</h4>
          <pre>{JSON.stringify(a.annotations, null, 2)}</pre>
        </>
      ) : null}
      {a.user_data !== null && a.user_data !== undefined ? (
        <>
          <h4>user_data</h4>
          <pre>{JSON.stringify(a.user_data, null, 2)}</pre>
        </>
      ) : null}
    </article>
  );
}

function JunitResults({ a, failed }: { a: AttestationViewBody; failed?: FailedCases }) {
  const t = a.totals!;
  const passed = Math.max(0, t.total - t.failures - t.errors - t.skipped);
  return (
    <>
      <p class="summary">
        Tests: {t.total} in {t.suites} {t.suites === 1 ? 'suite' : 'suites'}: {passed} passed, {t.failures} failed, {t.errors} errors, {t.skipped} skipped (
        {t.duration} s).
      </p>
      <table>
        <thead>
          <tr>
            <th>Suite</th>
            <th class="num">Total</th>
            <th class="num">Failures</th>
            <th class="num">Errors</th>
            <th class="num">Skipped</th>
            <th class="num">Seconds</th>
          </tr>
        </thead>
        <tbody>
          {a.junit_results!.map((s) => (
            <tr>
              <td>{factText(s.name)}</td>
              <td class="num">{s.total}</td>
              <td class={s.failures ? 'num failed' : 'num'}>{s.failures}</td>
              <td class={s.errors ? 'num failed' : 'num'}>{s.errors}</td>
              <td class="num">{s.skipped}</td>
              <td class="num">{s.duration}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {failed ? <FailedCaseList failed={failed} /> : null}
    </>
  );
}

function FailedCaseList({ failed }: { failed: FailedCases }) {
  if ('unreadable' in failed) return <p class="muted">Failed cases: {failed.unreadable}</p>;
  if (!failed.cases.length) return null;
  return (
    <>
      <h4>Failed tests</h4>
      <ul class="failed-cases">
        {failed.cases.map((c) => (
          <li>
            <strong>{c.className ? `${c.className}.${c.name}` : c.name}</strong>{' '}
            <span class="muted">
              ({c.kind} in suite {c.suite || 'unnamed'})
            </span>
            {c.message ? <div class="failed">{c.message}</div> : null}
            {c.details ? <pre>{c.details}</pre> : null}
          </li>
        ))}
      </ul>
      {failed.more ? <p class="muted">And {failed.more} more: download the report to see them.</p> : null}
    </>
  );
}
