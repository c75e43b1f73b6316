/**
 * Every environment of the organisation: its type, its attached policies, its latest snapshot's
 * time and compliance, and how many of the artifacts running there are not compliant, judged as
 * the environment's page judges them (domain/snapshot-judgement.ts), a page at a time.
 */
import { TrailEvaluator } from '../../domain/evaluate.ts';
import { judgeRunning } from '../../domain/snapshot-judgement.ts';
import type { EnvironmentStatus, Store } from '../../store/index.ts';
import { environmentStatusSorts } from '../../store/queries/environment-status.ts';
import { Compliance } from '../components/compliance.tsx';
import { createEnvironmentExample, Empty } from '../components/empty.tsx';
import { LinkList } from '../components/link-list.tsx';
import { Pager, SortHeader } from '../components/table.tsx';
import { Time } from '../components/time.tsx';
import { environmentPageHref, queryNumber } from '../links.ts';
import { definePage, type PageInput } from '../page.ts';
import { policyPageHref } from './policies.tsx';

/** An environment with its latest snapshot judged: `notCompliant` of its `running` artifacts fail its rule, `compliant` whether none does. */
interface EnvironmentLine extends Omit<EnvironmentStatus, 'snapshot'> {
  /** The latest snapshot without its artifacts: the page keeps only their counts. */
  snapshot: { index: number; createdAt: number; running: number } | null;
  compliant: boolean | null;
  notCompliant: number;
}

/** The order asked for; anything else is the default (by name, ascending). */
function askedOrder(query: URLSearchParams) {
  const sort = environmentStatusSorts.find((s) => s === query.get('sort')) ?? 'name';
  const direction: 'asc' | 'desc' =
    query.get('sort_direction') === 'desc' ? 'desc' : query.get('sort_direction') === 'asc' ? 'asc' : sort === 'name' ? 'asc' : 'desc';
  return { sort, direction };
}

/** Each environment of the page with what runs in it judged now, as its own page shows it. */
async function judged(store: Store, organizationId: number, items: readonly EnvironmentStatus[]): Promise<EnvironmentLine[]> {
  const now = Date.now() / 1000;
  const evaluator = new TrailEvaluator(store, now);
  return Promise.all(
    items.map(async ({ snapshot, ...e }): Promise<EnvironmentLine> => {
      if (!snapshot) return { ...e, snapshot: null, compliant: null, notCompliant: 0 };
      const running = snapshot.artifacts;
      const line = { ...e, snapshot: { index: snapshot.index, createdAt: snapshot.createdAt, running: running.length } };
      if (!running.length) return { ...line, compliant: true, notCompliant: 0 };
      const { evidence, compliant } = await judgeRunning(store, evaluator, { organizationId, environment: e, running, now });
      return { ...line, compliant, notCompliant: running.filter((a) => evidence.get(a.fingerprint)?.compliant !== true).length };
    }),
  );
}

function EnvironmentCompliance({ line }: { line: EnvironmentLine }) {
  if (!line.snapshot) return <Compliance compliant={null} label="NOT REPORTED" />;
  if (!line.policies.length) return <Compliance compliant={null} label="NO POLICY" />;
  return <Compliance compliant={line.compliant} />;
}

function EnvironmentRows({ input, lines }: { input: PageInput; lines: readonly EnvironmentLine[] }) {
  return (
    <tbody>
      {lines.map((e) => (
        <tr data-environment={e.name}>
          <td>
            <a href={environmentPageHref(input, e.name)}>{e.name}</a>
          </td>
          <td>{e.type}</td>
          <td>
            <LinkList names={e.policies} href={(name) => policyPageHref(input, name)} empty="none" />
          </td>
          <td>{e.snapshot ? <Time at={e.snapshot.createdAt} now={input.now} /> : <span class="muted">none yet</span>}</td>
          <td>
            <EnvironmentCompliance line={e} />
          </td>
          <td class="num">
            {e.snapshot ? (
              <a href={`${environmentPageHref(input, e.name)}#running`}>
                {e.notCompliant} of {e.snapshot.running}
              </a>
            ) : (
              <span class="muted">–</span>
            )}
          </td>
          <td>
            <Time at={e.lastReportedAt} now={input.now} />
          </td>
        </tr>
      ))}
    </tbody>
  );
}

export const environmentsPage = definePage({
  path: '/:org/environments',
  // Its HTML is remembered until the next commit or until a "how long ago" it writes moves: nothing else it shows moves with the time.
  remembered: true,
  async render(input) {
    const { store, org } = input;
    const order = askedOrder(input.query);
    const page = queryNumber(input.query, 'page', 1, 1, 100_000);
    const perPage = queryNumber(input.query, 'per_page', 25, 1, 100);
    // Remembered until the next commit (page-cache.ts): a judgement is a function of what is stored.
    const view = await input.cache.read('org-environments', { org: org.id, ...order, page, perPage }, async () => {
      const listed = await store.environmentStatusPage(org.id, order, (page - 1) * perPage, perPage);
      return { total: listed.total, lines: await judged(store, org.id, listed.items) };
    });
    const sorted = { url: input.url, current: order.sort, direction: order.direction };
    const content = (
      <>
        <h1>Environments of {org.name}</h1>
        {view.total === 0 ? (
          <Empty example={createEnvironmentExample(input.apiBase, org.name)}>
            No environments yet. Create one (<code>kosli create environment production --type K8S</code>, or this call), then report what runs in it:
          </Empty>
        ) : (
          <>
            <p class="summary" data-testid="environment-count">
              {`${view.total} ${view.total === 1 ? 'environment' : 'environments'}. Compliance is by the attached policies; with none, an artifact counts as compliant when a compliant trail attested it.`}
            </p>
            <section class="table-box" tabindex={0} aria-label="Environments (scrolls sideways on a narrow screen)">
              <table id="org-environments" class="wrap">
                <caption class="visually-hidden">Environments of {org.name} with their policies and latest snapshot</caption>
                <thead>
                  <tr>
                    <SortHeader {...sorted} sortKey="name">
                      Environment
                    </SortHeader>
                    <th scope="col">Type</th>
                    <th scope="col">Policies</th>
                    <SortHeader {...sorted} sortKey="changed">
                      Latest snapshot
                    </SortHeader>
                    <th scope="col">Compliance</th>
                    <th scope="col" class="num">
                      Non-compliant running
                    </th>
                    <th scope="col">Last report</th>
                  </tr>
                </thead>
                <EnvironmentRows input={input} lines={view.lines} />
              </table>
            </section>
            <Pager url={input.url} page={page} perPage={perPage} total={view.total} previous="← Previous" next="Next →" />
          </>
        )}
      </>
    );
    return { title: `Environments · ${org.name}`, content, until: Number.POSITIVE_INFINITY };
  },
});
