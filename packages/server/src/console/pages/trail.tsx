/**
 * A trail: its compliance with every reason, the template's expectations against what was
 * attested, its attestations (the latest of each name marked, earlier ones shown), JUnit suites
 * and failed cases, attachments to download, its git and repo facts, and where its artifacts
 * were deployed. Built from the same view as GET /trails/{org}/{flow}/{trail}.
 */
import { TrailEvaluator } from '../../domain/evaluate.ts';
import { trailView } from '../../http/views/trails.ts';
import { notFound } from '../../http/errors.ts';
import { requireTrail } from '../../operations/lookup.ts';
import { blobAddress } from '../../store/queries/blobs.ts';
import { Compliance } from '../components/compliance.tsx';
import { Empty } from '../components/empty.tsx';
import { CopyButton, CopyScript } from '../components/copy.tsx';
import { Facts, MaybeLink } from '../components/git.tsx';
import { Pager } from '../components/table.tsx';
import { Time } from '../components/time.tsx';
import { failedCasesOfReports } from '../kept-failed-cases.ts';
import { artifactPageHref, environmentPageHref, flowHref, orgHref, queryNumber, trailPageHref } from '../links.ts';
import { definePage } from '../page.ts';
import { whyNotCompliant } from '../components/attestation-kinds.tsx';
import { auditPackageHref } from './evidence-downloads.tsx';
import { AttestationDetails, Expectations, TrailArtifacts } from './trail-parts.tsx';

/** Reports read for their failed cases per page: the latest JUnit attestations that failed, at most this many. */
const reportsRead = 5;

/** The page shows no log indexes (the API's trail view carries them for clients that ask for proofs). */
const noLeaves = { trail: null, attestations: new Map<number, number>() };

export const trailPage = definePage({
  path: '/:org/flows/:flow/trails/:trail',
  // Its HTML is remembered until the next commit or until a "how long ago" it writes moves: nothing else it shows moves with the time.
  remembered: true,
  async render(input) {
    const { store, org, now, query, params } = input;
    const { trail } = await requireTrail(store, org.name, params.flow!, params.trail!);
    const page = queryNumber(query, 'page', 1, 1, 1_000_000);
    const perPage = queryNumber(query, 'per_page', 50, 1, 100);
    const evaluated = await new TrailEvaluator(store, now).evaluate(trail, { offset: (page - 1) * perPage, limit: perPage });
    const view = trailView(trail, evaluated, { org: org.name, apiBase: input.apiBase }, { page, per_page: perPage, originalUrl: input.url }, noLeaves);
    const self = trailPageHref(input, trail.flowName, trail.name);
    const downloadOf = (id: string) => `${self}/attachments/${id}`;

    const failedReports = view.attestations
      .filter((a) => a.is_latest && a.attachment && a.totals && a.totals.failures + a.totals.errors > 0)
      .slice(0, reportsRead);
    const failed = await failedCasesOfReports(
      store,
      failedReports.map((a) => ({ sha256: a.attachment!.sha256, size: a.attachment!.size })),
      now,
    );
    const fingerprints = [...new Set(view.attestations.map((a) => a.artifact_fingerprint).filter((f): f is string => !!f))];
    const deployments = await store.deploymentsOfFingerprints(org.id, fingerprints, 20);
    const git = view.git_commit_info as Record<string, unknown> | null;
    // The stored attestations of the page, for each kind's view and why one is not compliant.
    const rows = new Map(evaluated.attestations.map((a) => [String(a.id), a]));
    const why = new Map(
      [...rows].flatMap(([id, a]) => {
        const reason = whyNotCompliant({ a, now });
        return reason ? [[id, reason] as const] : [];
      }),
    );

    return {
      until: Number.POSITIVE_INFINITY,
      title: `${trail.name} · ${trail.flowName}`,
      content: (
        <>
          <p class="crumbs">
            <a href={orgHref(input)}>{org.name}</a> / <a href={flowHref(input, trail.flowName)}>{trail.flowName}</a> / trails
          </p>
          <h1>
            Trail {trail.name} <Compliance compliant={view.is_compliant} />
          </h1>
          {view.description ? <p>{view.description}</p> : null}
          <p>
            <a class="download" href={auditPackageHref(input, { flow: trail.flowName, trail: trail.name })} download>
              Download the audit package of this trail
            </a>
          </p>
          <p class="muted">
            Begun <Time at={view.created_at} now={now} /> by {view.created_by ?? 'a token not recorded'}; last changed{' '}
            <Time at={view.last_modified_at} now={now} />.
          </p>

          <section aria-labelledby="compliance">
            <h2 id="compliance">Compliance: {view.compliance_state}</h2>
            {view.compliance_status.reasons.length ? (
              <ul class="reasons">
                {view.compliance_status.reasons.map((r) => (
                  <li>{r}</li>
                ))}
              </ul>
            ) : (
              <p>Every attestation that counts is present and compliant.</p>
            )}
            <h3>Expected by the template, and attested</h3>
            <Expectations compliance={view.compliance_status} why={why} />
          </section>

          <section aria-labelledby="artifacts">
            <h2 id="artifacts">Artifacts ({evaluated.artifacts.length})</h2>
            <TrailArtifacts at={input} artifacts={evaluated.artifacts} compliance={evaluated.compliance} now={now} />
          </section>

          <section aria-labelledby="attestations">
            <h2 id="attestations">Attestations ({view.attestations_pagination.total})</h2>
            {view.attestations.length ? (
              view.attestations.map((a) => (
                <AttestationDetails
                  a={a}
                  row={rows.get(a.attestation_id)}
                  artifactHref={
                    a.artifact_fingerprint && /^[0-9a-f]{64}$/.test(a.artifact_fingerprint) ? artifactPageHref(input, a.artifact_fingerprint) : undefined
                  }
                  now={now}
                  download={a.attachment ? downloadOf(a.attestation_id) : undefined}
                  failed={failedReports.includes(a) ? failed.get(a.attachment!.sha256) : undefined}
                  trailCommit={git?.sha1}
                />
              ))
            ) : (
              <Empty
                example={`curl -X POST "${input.apiBase}/attestations/${org.name}/${trail.flowName}/trail/${trail.name}/junit" -H "Authorization: Bearer $TOKEN" \\\n  -F 'data_json={"attestation_name":"unit-tests","junit_results":[...]}' -F attachment_file=@report.xml`}
              >
                Nothing attested yet.
              </Empty>
            )}
            <Pager url={input.url} page={page} perPage={perPage} total={view.attestations_pagination.total} />
          </section>

          <section aria-labelledby="source">
            <h2 id="source">Commit and repository</h2>
            <h3>Commit</h3>
            {typeof git?.sha1 === 'string' ? (
              <p class="mono">
                {git.sha1} <CopyButton text={git.sha1} what="commit SHA" />
              </p>
            ) : null}
            <Facts facts={git} />
            <h3>Repository</h3>
            <Facts facts={view.repo_info as Record<string, unknown> | null} />
            {view.origin_url ? (
              <p>
                Origin (the CI run): <MaybeLink href={view.origin_url}>{view.origin_url}</MaybeLink>
              </p>
            ) : null}
            {view.external_urls ? (
              <>
                <h3>Links</h3>
                <Facts facts={view.external_urls as Record<string, unknown>} />
              </>
            ) : null}
            {view.user_data !== null && view.user_data !== undefined ? (
              <>
                <h3>User data</h3>
                <pre>{JSON.stringify(view.user_data, null, 2)}</pre>
              </>
            ) : null}
          </section>

          <CopyScript base={input.base} />
          <section aria-labelledby="deployed">
            <h2 id="deployed">Where its artifacts were deployed</h2>
            {deployments.length ? (
              <table>
                <thead>
                  <tr>
                    <th>When</th>
                    <th>Environment</th>
                    <th>Snapshot</th>
                    <th>Artifact</th>
                    <th>Fingerprint</th>
                  </tr>
                </thead>
                <tbody>
                  {deployments.map((d) => (
                    <tr>
                      <td>
                        <Time at={d.deployedAt} now={now} />
                      </td>
                      <td>
                        <a href={environmentPageHref(input, d.envName)}>{d.envName}</a>
                      </td>
                      <td class="num">#{d.snapshotIndex}</td>
                      <td>{d.artifactName}</td>
                      <td class="mono" title={d.fingerprint}>
                        <a href={artifactPageHref(input, d.fingerprint)}>{d.fingerprint.slice(0, 12)}</a>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p class="muted">
                {fingerprints.length
                  ? 'Its artifacts have not been deployed to any environment.'
                  : 'No attestation of this trail names an artifact fingerprint.'}
              </p>
            )}
          </section>
        </>
      ),
    };
  },
});

/** An attachment of one of the trail's attestations: the bytes as stored, never shown inline. */
export const attachmentDownload = definePage({
  path: '/:org/flows/:flow/trails/:trail/attachments/:attestation',
  async render({ store, org, params }) {
    const { trail } = await requireTrail(store, org.name, params.flow!, params.trail!);
    const id = /^[1-9][0-9]{0,15}$/.test(params.attestation!) ? Number(params.attestation) : NaN;
    const attachment = Number.isSafeInteger(id) ? await store.attachmentOf(trail.id, id) : undefined;
    const blob = attachment?.sha256 ? await store.getBlob(attachment.sha256) : undefined;
    if (!attachment || !blob) throw notFound(`Attestation ${params.attestation} of trail '${trail.name}' has no attachment.`);
    const sha256 = blobAddress(blob.content);
    if (sha256 !== blob.sha256) throw new Error(`blob ${blob.sha256} does not match its content (${sha256})`);
    return { download: { bytes: blob.content, name: attachment.name ?? 'attachment', sha256 } };
  },
});
