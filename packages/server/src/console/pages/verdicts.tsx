/**
 * The verdicts recorded in the organisation's log (`assert artifact` against policies), newest
 * first or of one fingerprint (`?fingerprint=`), and one verdict with its reasons
 * (verdict-reasons.tsx), the evidence it read and a link to its record's inclusion proof.
 */
import type { Verdict } from '../../domain/verdict.ts';
import { notFound } from '../../http/errors.ts';
import type { VerdictRow } from '../../store/index.ts';
import { Compliance } from '../components/compliance.tsx';
import { Empty } from '../components/empty.tsx';
import { Pager } from '../components/table.tsx';
import { Time } from '../components/time.tsx';
import { artifactPageHref, environmentPageHref, orgHref, queryNumber, type LinkBase } from '../links.ts';
import { definePage, type PageInput } from '../page.ts';
import { LogLink, VerdictEvidence, VerdictReasons } from './verdict-reasons.tsx';

const verdictsPerPage = 20;
const fingerprintPattern = /^[0-9a-f]{64}$/;

/** The page of a recorded verdict. */
export const verdictPageHref = (at: LinkBase, id: number) => orgHref(at, 'verdicts', id);

function Scope({ at, verdict }: { at: LinkBase; verdict: Verdict }) {
  if (verdict.environment !== null)
    return (
      <>
        environment <a href={environmentPageHref(at, verdict.environment)}>{verdict.environment}</a>
      </>
    );
  return <>policies {verdict.policies.map((p) => p.name).join(', ')}</>;
}

export const verdictsPage = definePage({
  path: '/:org/verdicts',
  async render(input) {
    const { store, org, query, now, url } = input;
    const asked = query.get('fingerprint')?.toLowerCase();
    const fingerprint = asked && fingerprintPattern.test(asked) ? asked : undefined;
    const page = queryNumber(query, 'page', 1, 1, 100_000);
    const verdicts = await input.cache.read('verdicts', { org: org.id, fingerprint, page }, () =>
      store.listVerdicts(org.id, { fingerprint, offset: (page - 1) * verdictsPerPage, limit: verdictsPerPage }),
    );
    const rows = verdicts.items.map((row) => ({ row, verdict: JSON.parse(row.verdict) as Verdict }));
    return {
      title: `Verdicts · ${org.name}`,
      content: (
        <>
          <p class="crumbs">
            <a href={orgHref(input)}>{org.name}</a> › verdicts
          </p>
          <h1>Verdicts</h1>
          <p data-testid="verdicts-summary">
            {`${verdicts.total} ${verdicts.total === 1 ? 'verdict' : 'verdicts'} recorded${fingerprint ? ` for ${fingerprint}` : ''}, newest first. `}
            Each is a record in the log that <code>trailproof verify-package</code> judges again offline.
          </p>
          {rows.length === 0 ? (
            <Empty example={`kosli assert artifact --fingerprint <sha256> --environment production --org ${org.name}`}>No verdict recorded yet.</Empty>
          ) : (
            <>
              <table class="verdicts">
                <caption class="visually-hidden">Verdicts of {org.name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Verdict</th>
                    <th scope="col">Recorded</th>
                    <th scope="col">Artifact</th>
                    <th scope="col">Scope</th>
                    <th scope="col">Policies</th>
                    <th scope="col">Result</th>
                    <th scope="col">Record</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map(({ row, verdict }) => (
                    <tr data-verdict={row.id}>
                      <td>
                        <a href={verdictPageHref(input, row.id)}>#{row.id}</a>
                      </td>
                      <td>
                        <Time at={row.createdAt} now={now} />
                      </td>
                      <td>
                        {verdict.artifact.name}{' '}
                        <a href={artifactPageHref(input, row.fingerprint)}>
                          <code title={row.fingerprint}>{row.fingerprint.slice(0, 12)}</code>
                        </a>
                      </td>
                      <td>
                        <Scope at={input} verdict={verdict} />
                      </td>
                      <td>{verdict.policies.map((p) => `${p.name} v${p.version}`).join(', ')}</td>
                      <td>
                        <Compliance compliant={row.compliant} />
                      </td>
                      <td>
                        <LogLink at={input} index={row.logIndex} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager url={url} page={page} perPage={verdictsPerPage} total={verdicts.total} />
            </>
          )}
        </>
      ),
    };
  },
});

async function readVerdict(input: PageInput): Promise<{ row: VerdictRow; verdict: Verdict }> {
  const id = Number(input.params.id);
  const row = Number.isSafeInteger(id) && id > 0 ? await input.store.findVerdict(input.org.id, id) : undefined;
  if (!row) throw notFound(`Verdict '${input.params.id}' does not exist in organization '${input.org.name}'`);
  return { row, verdict: JSON.parse(row.verdict) as Verdict };
}

export const verdictPage = definePage({
  path: '/:org/verdicts/:id',
  async render(input) {
    const { org, now } = input;
    const { row, verdict } = await readVerdict(input);
    return {
      title: `Verdict #${row.id} · ${org.name}`,
      content: (
        <>
          <p class="crumbs">
            <a href={orgHref(input)}>{org.name}</a> › <a href={orgHref(input, 'verdicts')}>verdicts</a>
          </p>
          <h1>
            Verdict #{row.id} <Compliance compliant={row.compliant} />
          </h1>
          <dl class="facts">
            <dt>Artifact</dt>
            <dd>
              {verdict.artifact.name}{' '}
              <a href={artifactPageHref(input, row.fingerprint)}>
                <code class="fingerprint">{row.fingerprint}</code>
              </a>
            </dd>
            <dt>Judged against</dt>
            <dd>
              <Scope at={input} verdict={verdict} />
              {verdict.flow !== null ? ` (reports in flow ${verdict.flow} only)` : null}
            </dd>
            <dt>Recorded</dt>
            <dd>
              <Time at={row.createdAt} now={now} />
            </dd>
            <dt>Record</dt>
            <dd data-testid="verdict-record">
              <LogLink at={input} index={row.logIndex} /> (its inclusion proof in the signed log)
            </dd>
          </dl>
          <VerdictReasons at={input} verdict={verdict} />
          <h2>Evidence read</h2>
          <VerdictEvidence at={input} verdict={verdict} />
        </>
      ),
    };
  },
});
