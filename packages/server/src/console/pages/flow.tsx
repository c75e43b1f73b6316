/**
 * A flow: its template, and its trails newest first with their compliance, commit and tests.
 * Queries: the flow, a page of trails, their attestations' facts (one query), the JUnit totals
 * of the attestations that count (one query) and the template blobs.
 */
import { TrailEvaluator } from '../../domain/evaluate.ts';
import { countingAttestations } from '../../domain/compliance.ts';
import { flowView } from '../../http/views/flows.ts';
import { notFound } from '../../http/errors.ts';
import type { JunitSuiteTotals, Store } from '../../store/index.ts';
import { ComplianceStrip, TestResultsChart } from '../charts.tsx';
import { complianceMarkup } from '../components/compliance.tsx';
import { actionStep, Empty } from '../components/empty.tsx';
import { commitMarkup, factText } from '../components/git.tsx';
import { Pager } from '../components/table.tsx';
import { Time, timeMarkup } from '../components/time.tsx';
import { orgHref, queryNumber, trailPageHref } from '../links.ts';
import { html } from '../markup.ts';
import { definePage } from '../page.ts';
import { auditPackageHref } from './evidence-downloads.tsx';

/** Passed, failed (failures and errors) and skipped tests over JUnit suites. */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
  total: number;
}

export function testCounts(suites: readonly JunitSuiteTotals[]): TestCounts {
  const counts = { passed: 0, failed: 0, skipped: 0, total: 0 };
  for (const s of suites) {
    const failed = (Number(s.failures) || 0) + (Number(s.errors) || 0);
    const skipped = Number(s.skipped) || 0;
    counts.total += Number(s.total) || 0;
    counts.failed += failed;
    counts.skipped += skipped;
    counts.passed += Math.max(0, (Number(s.total) || 0) - failed - skipped);
  }
  return counts;
}

/**
 * What the page shows of a flow: its record and template, a page of its trails, whether each is
 * compliant and its tests' counts. Remembered until the next commit (page-cache.ts): a verdict
 * is a function of what is stored. The API's list of trails judges its page on every call.
 */
async function readFlow(store: Store, organizationId: number, orgName: string, flowName: string, page: number, perPage: number) {
  const record = await store.getFlowRecord(organizationId, flowName);
  if (!record) return null;
  const evaluator = new TrailEvaluator(store, Date.now() / 1000);
  const [view, trails] = await Promise.all([flowView(record, orgName, evaluator), store.listTrailPage(record.id, (page - 1) * perPage, perPage)]);
  const evaluated = await evaluator.complianceOf(trails.items);
  // The JUnit attestations that count (the latest of each name) decide a trail's test figures.
  const junitIds = evaluated.map((e) => [...countingAttestations(e.facts).values()].filter((a) => a.type === 'junit').map((a) => a.id));
  const results = await store.junitResultsOf([...new Set(junitIds.flat())]);
  const counts = junitIds.map((ids) => (ids.length ? testCounts(ids.flatMap((id) => results.get(id) ?? [])) : null));
  return { record, template: view.template?.content, trails, compliant: evaluated.map((e) => e.compliance.is_compliant), counts };
}

export const flowPage = definePage({
  path: '/:org/flows/:flow',
  // Its HTML is remembered until the next commit or until a "how long ago" it writes moves: nothing else it shows moves with the time.
  remembered: true,
  async render(input) {
    const { store, org, now, query, params } = input;
    const page = queryNumber(query, 'page', 1, 1, 1_000_000);
    const perPage = queryNumber(query, 'per_page', 20, 1, 100);
    const data = await input.cache.read('flow', { org: org.id, flow: params.flow!, page, perPage }, () =>
      readFlow(store, org.id, org.name, params.flow!, page, perPage),
    );
    if (!data) throw notFound(`There is no flow '${params.flow}' in ${org.name}.`);
    const { record, template, trails, compliant, counts } = data;

    return {
      until: Number.POSITIVE_INFINITY,
      title: `${record.name} · flow`,
      content: (
        <>
          <p class="crumbs">
            <a href={orgHref(input)}>{org.name}</a> / flows
          </p>
          <h1>Flow {record.name}</h1>
          {record.description ? <p>{record.description}</p> : null}
          <p class="muted">
            Visibility: {record.visibility}. Created <Time at={record.createdAt} now={now} />.
          </p>
          <p>
            <a class="download" href={orgHref(input, 'flows', record.name, 'approvals')}>
              Approvals of this flow
            </a>
            <a class="download" href={auditPackageHref(input, { flow: record.name })} download>
              Download the audit package of this flow
            </a>
          </p>

          <section aria-labelledby="trails">
            <h2 id="trails">Trails</h2>
            {trails.items.length ? (
              <>
                <table id="trail-list">
                  <thead>
                    <tr>
                      <th>Trail</th>
                      <th>Compliance</th>
                      <th>Commit</th>
                      <th>Branch</th>
                      <th>Author</th>
                      <th>When</th>
                      <th class="num">Passed</th>
                      <th class="num">Failed</th>
                      <th class="num">Skipped</th>
                    </tr>
                  </thead>
                  <tbody
                    dangerouslySetInnerHTML={{
                      __html: html`${trails.items.map((trail, i) => {
                        const git = trail.gitCommitInfo as Record<string, unknown> | null;
                        const c = counts[i];
                        return html`<tr><td><a href="${trailPageHref(input, record.name, trail.name)}">${trail.name}</a></td><td>${complianceMarkup(compliant[i]!)}</td><td>${commitMarkup(git)}</td><td>${factText(git?.branch)}</td><td>${factText(git?.author)}</td><td>${timeMarkup(trail.createdAt, now)}</td><td class="num">${c ? c.passed : '–'}</td><td class="${c?.failed ? 'num failed' : 'num'}">${c ? c.failed : '–'}</td><td class="num">${c ? c.skipped : '–'}</td></tr>`;
                      })}`.text,
                    }}
                  />
                </table>
                <Pager url={input.url} page={page} perPage={perPage} total={trails.total} />
                <div class="chart">
                  <TestResultsChart
                    id="test-results"
                    runs={trails.items
                      .flatMap((trail, i) => {
                        const c = counts[i];
                        return c
                          ? [{ label: trail.name, href: trailPageHref(input, record.name, trail.name), passed: c.passed, failed: c.failed, skipped: c.skipped }]
                          : [];
                      })
                      .reverse()}
                  />
                  <ComplianceStrip
                    id="compliance-over-time"
                    points={trails.items
                      .map((trail, i) => ({
                        label: trail.name,
                        href: trailPageHref(input, record.name, trail.name),
                        at: trail.createdAt,
                        compliant: compliant[i]!,
                      }))
                      .reverse()}
                  />
                </div>
              </>
            ) : (
              <Empty example={actionStep(org.name, record.name)}>
                No trails yet. Each CI run begins one and attests its tests, for example with the GitHub Action:
              </Empty>
            )}
          </section>

          <section aria-labelledby="template">
            <h2 id="template">Template</h2>
            {template ? (
              <pre>{template}</pre>
            ) : (
              <Empty
                example={`curl -X PUT "${input.apiBase}/flows/${org.name}/template_file" -H "Authorization: Bearer $TOKEN" \\\n  -F template_file=@template.yml -F 'data_json={"name":"${record.name}"}'`}
              >
                This flow has no template: its trails are compliant when every attestation made is. A template says which attestations each trail needs.
              </Empty>
            )}
          </section>
        </>
      ),
    };
  },
});
