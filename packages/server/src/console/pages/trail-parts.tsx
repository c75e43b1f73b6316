/** Parts of the trail page: what the template expects against what was attested, and one attestation in full. */
import type { AttestationViewBody, TrailSummaryBody } from '@trailproof/schema';
import { Compliance } from '../components/compliance.tsx';
import { CopyButton } from '../components/copy.tsx';
import { Facts, factText, MaybeLink } from '../components/git.tsx';
import { Time } from '../components/time.tsx';
import type { FailedCases } from '../junit-cases.ts';
import { artifactStateOf } from '../../domain/artifact-state.ts';
import type { ComplianceStatus } from '../../domain/compliance.ts';
import type { ArtifactRow, AttestationRow } from '../../store/types.ts';
import { AttestationKindView } from '../components/attestation-kinds.tsx';
import { artifactPageHref, type LinkBase } from '../links.ts';
import { StateBadge } from '../components/compliance.tsx';

/** Artifacts of a trail a page lists. */
const artifactsShown = 100;

/** The artifacts reported to the trail, newest first, each linked to its page with its state in the trail. */
export function TrailArtifacts({
  at,
  artifacts,
  compliance,
  now,
}: {
  at: LinkBase;
  artifacts: readonly ArtifactRow[];
  compliance: ComplianceStatus;
  now: number;
}) {
  if (!artifacts.length) return <p class="muted">No artifact was reported to this trail.</p>;
  const newest = [...artifacts].reverse().slice(0, artifactsShown);
  return (
    <>
      <table class="wrap">
        <thead>
          <tr>
            <th scope="col">Artifact</th>
            <th scope="col">Fingerprint</th>
            <th scope="col">Reported</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {newest.map((r) => (
            <tr data-artifact={r.templateReferenceName}>
              <td>
                <a href={artifactPageHref(at, r.fingerprint, r.flowName)}>
                  <bdi>{r.templateReferenceName || r.filename}</bdi>
                </a>
                {r.templateReferenceName && r.filename !== r.templateReferenceName ? (
                  <span class="muted">
                    {' '}
                    (<bdi>{r.filename}</bdi>)
                  </span>
                ) : null}
              </td>
              <td>
                <code title={r.fingerprint}>{r.fingerprint.slice(0, 12)}</code>
              </td>
              <td>
                <Time at={r.createdAt} now={now} />
              </td>
              <td>
                <StateBadge state={artifactStateOf(compliance, r.templateReferenceName).state} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {artifacts.length > artifactsShown ? <p class="muted">And {artifacts.length - artifactsShown} older ones.</p> : null}
    </>
  );
}

type Status = TrailSummaryBody['compliance_status']['attestations_statuses'][number];

/** One row per requirement and per attestation outside the template, trail-level first, then by artifact. */
export function Expectations({ compliance, why }: { compliance: TrailSummaryBody['compliance_status']; why?: ReadonlyMap<string, string> }) {
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
            <td>
              {status.reason ?? ''}
              {status.attestation_id && why?.get(status.attestation_id) ? `: ${why.get(status.attestation_id)}` : ''}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** An attestation with everything it carries; `download` is the console's link to its attachment. */
export function AttestationDetails({
  a,
  row,
  artifactHref,
  now,
  download,
  failed,
  trailCommit,
}: {
  a: AttestationViewBody;
  /** The trail's commit SHA: an attestation's commit block is shown only where it names another. */
  trailCommit?: unknown;
  /** The attestation as stored, for its kind's view (attestation-kinds.tsx). */
  row?: AttestationRow;
  /** The page of the artifact it carries the fingerprint of. */
  artifactHref?: string;
  now: number;
  download?: string;
  failed?: FailedCases;
}) {
  const sameCommit = trailCommit !== undefined && (a.git_commit_info as Record<string, unknown> | null)?.sha1 === trailCommit;
  return (
    <article id={`attestation-${a.attestation_id}`}>
      <h3>
        {a.attestation_name}{' '}
        <span class="muted">
          ({a.attestation_type}, #{a.attestation_id})
        </span>{' '}
        <Compliance compliant={a.is_compliant} />{' '}
        {a.is_latest ? (
          <span class="badge ok">Latest of its name: counts for compliance</span>
        ) : (
          <span class="badge none">Earlier: replaced by a later one</span>
        )}
      </h3>
      <dl class="facts">
        <dt>Stored</dt>
        <dd>
          <Time at={a.created_at} now={now} />
        </dd>
        <dt>Created by</dt>
        <dd>{a.created_by ?? 'not recorded'}</dd>
        {a.artifact_fingerprint ? (
          <>
            <dt>Artifact fingerprint</dt>
            <dd class="mono">
              {artifactHref ? <a href={artifactHref}>{a.artifact_fingerprint}</a> : a.artifact_fingerprint}
              <CopyButton text={a.artifact_fingerprint} what="fingerprint" />
            </dd>
          </>
        ) : null}
        {a.target_artifacts.length ? (
          <>
            <dt>For artifacts</dt>
            <dd>{a.target_artifacts.join(', ')}</dd>
          </>
        ) : null}
        {a.description ? (
          <>
            <dt>Description</dt>
            <dd>{a.description}</dd>
          </>
        ) : null}
        {a.origin_url ? (
          <>
            <dt>Origin</dt>
            <dd>
              <MaybeLink href={a.origin_url}>{a.origin_url}</MaybeLink>
            </dd>
          </>
        ) : null}
        {a.attachment ? (
          <>
            <dt>Attachment</dt>
            <dd>
              {download ? (
                <a href={download} download={a.attachment.name}>
                  Download {a.attachment.name}
                </a>
              ) : (
                a.attachment.name
              )}{' '}
              ({a.attachment.size} bytes)
              <div class="mono">
                SHA-256 {a.attachment.sha256} <CopyButton text={a.attachment.sha256} what="attachment's SHA-256" />
              </div>
            </dd>
          </>
        ) : null}
      </dl>
      {row ? <AttestationKindView a={row} now={now} /> : null}
      {a.junit_results && a.totals ? <JunitResults a={a} failed={failed} /> : null}
      {a.git_commit_info && !sameCommit ? (
        <>
          <h4>Commit of this attestation</h4>
          <Facts facts={a.git_commit_info as Record<string, unknown>} />
        </>
      ) : null}
      {a.external_urls ? (
        <>
          <h4>Links</h4>
          <Facts facts={a.external_urls as Record<string, unknown>} />
        </>
      ) : null}
      {a.annotations ? (
        <>
          <h4>Annotations</h4>
          <pre>{JSON.stringify(a.annotations, null, 2)}</pre>
        </>
      ) : null}
      {a.user_data !== null && a.user_data !== undefined ? (
        <>
          <h4>User data</h4>
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
            <strong>{failedTestTitle(c)}</strong>{' '}
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

/**
 * A failed test's title as a person reads it: `Class.method`, the class once where the name
 * carries it already, and a sentence (as Jest or RSpec name a test) with its class after it.
 */
export function failedTestTitle({ className, name }: { className?: string | null; name: string }): string {
  const title = name.trim() || 'unnamed test';
  if (!className || title.includes(className)) return title;
  return /\s/.test(title) ? `${title} (${className})` : `${className}.${title}`;
}
