/**
 * An artifact, by its SHA-256 fingerprint: what it is (name, fingerprint, flow, trail, commit,
 * build), its state and why (the attestations missing or failing, from its trail's compliance),
 * the attestations bound to it as each kind reads, where it runs and ran and since when, and its
 * history a page at a time. `/{org}/artifacts/{fp}` shows every report of it in the organisation;
 * `/{org}/flows/{flow}/artifacts/{fp}` (the API's `html_url`) those of one flow.
 */
import { createdByName } from '../../domain/created-by.ts';
import { notFound } from '../../http/errors.ts';
import { AttestationKindView } from '../components/attestation-kinds.tsx';
import { Compliance, StateBadge } from '../components/compliance.tsx';
import { CopyButton, CopyScript } from '../components/copy.tsx';
import { Facts, MaybeLink } from '../components/git.tsx';
import { Pager } from '../components/table.tsx';
import { Time } from '../components/time.tsx';
import { environmentPageHref, flowHref, orgHref, queryNumber, trailPageHref } from '../links.ts';
import { definePage, type PageInput, type PageResult } from '../page.ts';
import { snapshotPageHref } from '../components/deployment-list.tsx';
import { type ArtifactFacts, lastEventIn, readArtifact } from './artifact-data.ts';

/** History rows a page shows. */
export const historyPerPage = 50;
/** Earlier attestations listed by name. */
const earlierShown = 50;

/** A full fingerprint, lower-cased; undefined when the path holds anything else. */
const fingerprintOf = (value: string | undefined) => (value && /^[0-9a-fA-F]{64}$/.test(value) ? value.toLowerCase() : undefined);

async function renderArtifact(input: PageInput, flow: string | undefined): Promise<PageResult> {
  const fingerprint = fingerprintOf(input.params.fingerprint);
  if (!fingerprint) throw notFound('There is no such artifact: a fingerprint is 64 hexadecimal characters (search finds one by a prefix).');
  const facts = await input.cache.read('artifact', { org: input.org.id, fingerprint, flow }, () => readArtifact(input.store, input.org, fingerprint, flow));
  const newest = facts.reports[0];
  const name = newest ? newest.row.templateReferenceName || newest.row.filename : (facts.ranAs ?? 'artifact');
  return {
    title: `${name} · artifact`,
    content: (
      <>
        <CopyScript base={input.base} />
        <p class="crumbs">
          <a href={orgHref(input)}>{input.org.name}</a> ›{' '}
          {flow === undefined ? (
            'artifacts'
          ) : (
            <>
              <a href={flowHref(input, flow)}>
                <bdi>{flow}</bdi>
              </a>{' '}
              › artifacts
            </>
          )}
        </p>
        <h1>
          <bdi>{name}</bdi> <StateBadge state={newest?.state ?? null} />
        </h1>
        <p>
          <code class="fingerprint" data-testid="fingerprint">
            {fingerprint}
          </code>
          <CopyButton text={fingerprint} what="fingerprint" />
        </p>
        {newest ? <WhatItIs input={input} facts={facts} /> : <p class="muted">No flow reported this artifact: it was only seen running.</p>}
        {newest ? <Compliant input={input} facts={facts} /> : null}
        <WhereItRuns input={input} facts={facts} />
        <History input={input} facts={facts} />
      </>
    ),
  };
}

function WhatItIs({ input, facts }: { input: PageInput; facts: ArtifactFacts }) {
  const { row } = facts.reports[0]!;
  const others = facts.reports.slice(1);
  return (
    <section aria-labelledby="what">
      <h2 id="what">What it is</h2>
      <dl class="facts">
        <dt>Name</dt>
        <dd>
          <bdi>{row.filename}</bdi>
          {row.templateReferenceName && row.templateReferenceName !== row.filename ? (
            <span class="muted">
              {' '}
              (template artifact <bdi>{row.templateReferenceName}</bdi>)
            </span>
          ) : null}
        </dd>
        <dt>Flow</dt>
        <dd>
          <a href={flowHref(input, row.flowName)}>
            <bdi>{row.flowName}</bdi>
          </a>
        </dd>
        <dt>Trail</dt>
        <dd>
          <a href={trailPageHref(input, row.flowName, row.trailName)} data-testid="trail-link">
            <bdi>{row.trailName}</bdi>
          </a>
        </dd>
        <dt>Commit</dt>
        <dd>
          {row.gitCommit ? (
            <>
              <code title={row.gitCommit}>
                <MaybeLink href={row.commitUrl}>{row.gitCommit}</MaybeLink>
              </code>
              <CopyButton text={row.gitCommit} what="commit SHA" />
            </>
          ) : (
            <span class="muted">not given</span>
          )}
        </dd>
        <dt>Build</dt>
        <dd>{row.buildUrl ? <MaybeLink href={row.buildUrl}>{row.buildUrl}</MaybeLink> : <span class="muted">not given</span>}</dd>
        <dt>Reported</dt>
        <dd>
          <Time at={row.createdAt} now={input.now} /> by {createdByName(row.createdBy) ?? 'a token not recorded'}
        </dd>
      </dl>
      {row.gitCommitInfo ? (
        <details>
          <summary>The commit as reported</summary>
          <Facts facts={row.gitCommitInfo} />
        </details>
      ) : null}
      {row.annotations && Object.keys(row.annotations).length ? (
        <>
          <h3>Annotations</h3>
          <Facts facts={row.annotations} />
        </>
      ) : null}
      {others.length ? (
        <>
          <h3>Also reported ({others.length})</h3>
          <table class="wrap">
            <thead>
              <tr>
                <th scope="col">Flow / trail</th>
                <th scope="col">Reported</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {others.map((r) => (
                <tr>
                  <td>
                    <a href={trailPageHref(input, r.row.flowName, r.row.trailName)}>
                      <bdi>{r.row.flowName}</bdi>/<bdi>{r.row.trailName}</bdi>
                    </a>
                  </td>
                  <td>
                    <Time at={r.row.createdAt} now={input.now} />
                  </td>
                  <td>
                    <StateBadge state={r.state} /> {r.info ? <span class="rel">{r.info}</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}

function Compliant({ input, facts }: { input: PageInput; facts: ArtifactFacts }) {
  const newest = facts.reports[0]!;
  const statuses = facts.entry?.attestations_statuses ?? [];
  const self = trailPageHref(input, newest.row.flowName, newest.row.trailName);
  return (
    <section aria-labelledby="compliance">
      <h2 id="compliance">Compliance: {newest.state}</h2>
      {newest.info ? (
        <ul class="reasons" data-testid="reasons">
          {newest.info.split('; ').map((r) => (
            <li>{r}</li>
          ))}
        </ul>
      ) : (
        <p>Every attestation it needs is present and compliant.</p>
      )}
      <h3>Its attestations</h3>
      {statuses.length ? (
        statuses.map((s) => {
          const stored = s.attestation_id ? facts.counting.get(Number(s.attestation_id)) : undefined;
          return (
            <article class="attestation" data-attestation={s.attestation_name}>
              <h4>
                {s.attestation_id ? <a href={`${self}#attestation-${s.attestation_id}`}>{s.attestation_name}</a> : s.attestation_name}{' '}
                <span class="muted">({s.attestation_type ?? 'any type'})</span>{' '}
                {s.status === 'MISSING' ? <span class="badge warn">MISSING</span> : <Compliance compliant={s.is_compliant} />}
              </h4>
              {s.reason ? <p class="failed">{s.reason}</p> : null}
              {stored ? (
                <>
                  <p class="muted">
                    Attested <Time at={stored.createdAt} now={input.now} />
                  </p>
                  <AttestationKindView a={stored} now={input.now} />
                </>
              ) : null}
            </article>
          );
        })
      ) : (
        <p class="muted">Its trail's template asks nothing of it, and nothing was attested about it.</p>
      )}
      {facts.earlier.length ? (
        <>
          <h3>Earlier attestations, replaced by later ones</h3>
          <ul>
            {facts.earlier.slice(0, earlierShown).map((f) => (
              <li>
                <a href={`${self}#attestation-${f.id}`}>{f.name}</a> <span class="muted">(#{f.id})</span> <Compliance compliant={f.compliant} />
              </li>
            ))}
          </ul>
          {facts.earlier.length > earlierShown ? <p class="muted">And {facts.earlier.length - earlierShown} more on the trail's page.</p> : null}
        </>
      ) : null}
    </section>
  );
}

function WhereItRuns({ input, facts }: { input: PageInput; facts: ArtifactFacts }) {
  const { running, exited } = facts.where;
  return (
    <section aria-labelledby="where">
      <h2 id="where">Where it runs and ran</h2>
      {running.length || exited.length ? (
        <table class="wrap">
          <thead>
            <tr>
              <th scope="col">Environment</th>
              <th scope="col">Now</th>
              <th scope="col">Snapshot</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {running.map((e) => (
              <tr data-environment={e.environment_name}>
                <td>
                  <a href={environmentPageHref(input, e.environment_name)}>
                    <bdi>{e.environment_name}</bdi>
                  </a>
                </td>
                <td>
                  <span class="badge ok">running</span>
                </td>
                <td>
                  <a href={snapshotPageHref(input, e.environment_name, e.snapshot_index)}>#{e.snapshot_index}</a>
                </td>
                <td>
                  <Time at={lastEventIn(facts.history, e.environment_name, 'started')} now={input.now} />
                </td>
              </tr>
            ))}
            {exited.map((e) => (
              <tr data-environment={e.environment_name}>
                <td>
                  <a href={environmentPageHref(input, e.environment_name)}>
                    <bdi>{e.environment_name}</bdi>
                  </a>
                </td>
                <td>
                  <span class="badge none">exited</span>
                </td>
                <td>
                  <a href={snapshotPageHref(input, e.environment_name, e.snapshot_index)}>#{e.snapshot_index}</a>
                </td>
                <td>
                  stopped <Time at={lastEventIn(facts.history, e.environment_name, 'exited')} now={input.now} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">It has not run in any environment of {input.org.name}.</p>
      )}
    </section>
  );
}

function History({ input, facts }: { input: PageInput; facts: ArtifactFacts }) {
  const page = queryNumber(input.query, 'page', 1, 1, Math.max(1, Math.ceil(facts.history.length / historyPerPage)));
  const shown = facts.history.slice((page - 1) * historyPerPage, page * historyPerPage);
  return (
    <section aria-labelledby="history">
      <h2 id="history">History ({facts.history.length})</h2>
      <table class="wrap">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
          </tr>
        </thead>
        <tbody data-testid="history">
          {shown.map((e) => (
            <tr class={`event-${e.type}`}>
              <td>
                <Time at={e.timestamp} now={input.now} />
              </td>
              <td>
                {e.environment_name !== null && e.snapshot_index !== null ? (
                  <a href={snapshotPageHref(input, e.environment_name, e.snapshot_index)}>
                    <bdi>{e.event}</bdi>
                  </a>
                ) : (
                  <bdi>{e.event}</bdi>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager url={input.url} page={page} perPage={historyPerPage} total={facts.history.length} />
      {facts.historyCut ? <p class="muted">Only its newest environment events are kept here; the environments' pages have them all.</p> : null}
    </section>
  );
}

export const artifactPage = definePage({
  path: '/:org/artifacts/:fingerprint',
  render: (input) => renderArtifact(input, undefined),
});

export const flowArtifactPage = definePage({
  path: '/:org/flows/:flow/artifacts/:fingerprint',
  render: (input) => renderArtifact(input, input.params.flow!),
});
