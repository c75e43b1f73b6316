/**
 * Every trail of the organisation, across its flows: filtered by compliance, flow, branch, commit
 * and time range, sorted by a column, every filter in the query string so that a link shares the
 * view. Compliance is judged as the API judges it (from the attestations' facts), so that filter
 * reads trails newest first in batches and keeps those that match, up to a bound a request.
 */
import { TrailEvaluator } from '../../domain/evaluate.ts';
import type { Store } from '../../store/index.ts';
import { trailViewSorts, type TrailViewFilter, type TrailViewSort } from '../../store/queries/trail-views.ts';
import { complianceMarkup } from '../components/compliance.tsx';
import { commitMarkup, factText } from '../components/git.tsx';
import { Pager, SortHeader } from '../components/table.tsx';
import { timeMarkup } from '../components/time.tsx';
import { flowHref, orgHref, queryNumber, trailPageHref, withQuery } from '../links.ts';
import { html } from '../markup.ts';
import { definePage, type PageInput } from '../page.ts';
import { queryTime } from './deployments.tsx';

/** Trails judged per request at most when only compliant or non-compliant ones are asked for. */
export const trailsJudgedPerRequest = 1_000;
const judgedPerBatch = 100;
const compliances = ['compliant', 'non-compliant'] as const;
type ComplianceWanted = (typeof compliances)[number] | undefined;

/** What a row shows: a trail's name and flow, its commit facts, when it began and whether it is compliant. */
interface TrailLine {
  name: string;
  flow: string;
  git: { sha1?: unknown; url?: unknown; branch?: unknown; author?: unknown } | null;
  createdAt: number;
  compliant: boolean;
}

/** The view the query string asks for; anything a person mistyped is left out, not refused. */
export interface TrailViewAsked {
  compliance: ComplianceWanted;
  flow?: string;
  branch?: string;
  commit?: string;
  from?: number;
  until?: number;
  sort: TrailViewSort;
  direction: 'asc' | 'desc';
  page: number;
  perPage: number;
  /** Where the compliance filter's scan starts (trails skipped in the view's order). */
  scan: number;
}

export function askedView(query: URLSearchParams): TrailViewAsked {
  const compliance = compliances.find((c) => c === query.get('compliance'));
  const sort = trailViewSorts.find((s) => s === query.get('sort')) ?? 'created';
  const commit = query.get('commit')?.trim().toLowerCase();
  // No flow or branch name holds a control character or runs this long: such a value is left out (PostgreSQL refuses NUL in text).
  const text = (name: string) => {
    const value = query.get(name)?.trim();
    return value && value.length <= 256 && !/[\u0000-\u001f\u007f]/.test(value) ? value : undefined;
  };
  return {
    compliance,
    flow: text('flow'),
    branch: text('branch'),
    commit: commit && /^[0-9a-f]{1,64}$/.test(commit) ? commit : undefined,
    from: queryTime(query.get('from')),
    until: queryTime(query.get('until')),
    sort,
    direction: query.get('sort_direction') === 'asc' ? 'asc' : query.get('sort_direction') === 'desc' ? 'desc' : sort === 'created' ? 'desc' : 'asc',
    page: queryNumber(query, 'page', 1, 1, 100_000),
    perPage: queryNumber(query, 'per_page', 25, 1, 100),
    scan: queryNumber(query, 'scan', 0, 0, 100_000_000),
  };
}

const lineOf = (trail: { name: string; flowName: string; gitCommitInfo: Record<string, unknown> | null; createdAt: number }, compliant: boolean): TrailLine => {
  const g = trail.gitCommitInfo;
  return {
    name: trail.name,
    flow: trail.flowName,
    git: g && { sha1: g.sha1, url: g.url, branch: g.branch, author: g.author },
    createdAt: trail.createdAt,
    compliant,
  };
};

/** A page of the view (no compliance filter): the store pages it, then the page is judged in one batch. */
async function readPage(store: Store, organizationId: number, filter: TrailViewFilter, asked: TrailViewAsked) {
  const sort = { by: asked.sort, direction: asked.direction };
  const page = await store.listTrailView(organizationId, filter, sort, (asked.page - 1) * asked.perPage, asked.perPage);
  const judged = await new TrailEvaluator(store, Date.now() / 1000).complianceOf(page.items);
  return { lines: page.items.map((t, i) => lineOf(t, judged[i]!.compliance.is_compliant)), total: page.total, scannedTo: undefined as number | undefined };
}

/** Trails of the compliance asked, read in batches from `asked.scan` until a page is full or the bound is reached. */
async function readJudged(store: Store, organizationId: number, filter: TrailViewFilter, asked: TrailViewAsked) {
  const sort = { by: asked.sort, direction: asked.direction };
  const evaluator = new TrailEvaluator(store, Date.now() / 1000);
  const lines: TrailLine[] = [];
  let offset = asked.scan;
  let total = 0;
  while (lines.length < asked.perPage && offset - asked.scan < trailsJudgedPerRequest) {
    const batch = await store.listTrailView(organizationId, filter, sort, offset, judgedPerBatch);
    total = batch.total;
    const judged = await evaluator.complianceOf(batch.items);
    for (const [i, trail] of batch.items.entries()) {
      offset++;
      if (judged[i]!.compliance.is_compliant === (asked.compliance === 'compliant')) lines.push(lineOf(trail, judged[i]!.compliance.is_compliant));
      if (lines.length === asked.perPage) break;
    }
    if (batch.items.length < judgedPerBatch) break;
  }
  return { lines, total, scannedTo: offset < total ? offset : undefined };
}

/** What the page shows, remembered until the next commit (page-cache.ts); null when the flow asked for does not exist. */
async function readView(input: PageInput, asked: TrailViewAsked) {
  const { store, org } = input;
  const flowId = asked.flow === undefined ? undefined : (await store.getFlowRecord(org.id, asked.flow))?.id;
  if (asked.flow !== undefined && flowId === undefined) return null;
  const filter: TrailViewFilter = { flowId, branch: asked.branch, commitPrefix: asked.commit, from: asked.from, until: asked.until };
  return input.cache.read('org-trails', { org: org.id, ...asked }, () =>
    asked.compliance ? readJudged(store, org.id, filter, asked) : readPage(store, org.id, filter, asked),
  );
}

const dateText = (at: number | undefined) => (at === undefined ? '' : new Date(at * 1000).toISOString().slice(0, 10));

function Filters({ input, asked }: { input: PageInput; asked: TrailViewAsked }) {
  return (
    <form class="filters" method="get" action={orgHref(input, 'trails')} aria-label="Filter trails">
      <label>
        Compliance
        <select name="compliance">
          <option value="">Any</option>
          <option value="non-compliant" selected={asked.compliance === 'non-compliant'}>
            Non-compliant only
          </option>
          <option value="compliant" selected={asked.compliance === 'compliant'}>
            Compliant only
          </option>
        </select>
      </label>
      <label>
        Flow
        <input name="flow" value={asked.flow ?? ''} />
      </label>
      <label>
        Branch
        <input name="branch" value={asked.branch ?? ''} />
      </label>
      <label>
        Commit (SHA or its start)
        <input name="commit" value={asked.commit ?? ''} maxlength={64} spellcheck={false} />
      </label>
      <label>
        Begun from (UTC date)
        <input name="from" type="date" value={dateText(asked.from)} />
      </label>
      <label>
        Begun before (UTC date)
        <input name="until" type="date" value={dateText(asked.until)} />
      </label>
      {asked.sort !== 'created' ? <input type="hidden" name="sort" value={asked.sort} /> : null}
      <button type="submit">Show trails</button>
      <a href={orgHref(input, 'trails')}>Clear filters</a>
    </form>
  );
}

function TrailRows({ input, lines }: { input: PageInput; lines: readonly TrailLine[] }) {
  const rows = html`${lines.map(
    (t) =>
      html`<tr><td><a href="${trailPageHref(input, t.flow, t.name)}">${t.name}</a></td><td><a href="${flowHref(input, t.flow)}">${t.flow}</a></td><td>${complianceMarkup(t.compliant)}</td><td>${commitMarkup(t.git)}</td><td>${factText(t.git?.branch)}</td><td>${factText(t.git?.author)}</td><td>${timeMarkup(t.createdAt, input.now)}</td></tr>`,
  )}`;
  return <tbody dangerouslySetInnerHTML={{ __html: rows.text }} />;
}

export const trailsPage = definePage({
  path: '/:org/trails',
  // Its HTML is remembered until the next commit or until a "how long ago" it writes moves: nothing else it shows moves with the time.
  remembered: true,
  async render(input) {
    const asked = askedView(input.query);
    const view = await readView(input, asked);
    const sorted = { url: input.url, current: asked.sort, direction: asked.direction };
    const content = (
      <>
        <h1>Trails of {input.org.name}</h1>
        <Filters input={input} asked={asked} />
        {view === null ? (
          <p class="empty">
            There is no flow '{asked.flow}' in {input.org.name}.
          </p>
        ) : (
          <>
            <p class="summary" data-testid="trail-count">
              {asked.compliance
                ? `${view.lines.length} ${asked.compliance} trails shown, judged from the ${view.total} that match the other filters${view.scannedTo ? ` (up to the ${view.scannedTo}th)` : ''}.`
                : `${view.total} trails match.`}
            </p>
            {view.lines.length ? (
              <section class="table-box" tabindex={0} aria-label="Trails (scrolls sideways on a narrow screen)">
                <table id="org-trails" class="wrap">
                  <thead>
                    <tr>
                      <SortHeader {...sorted} sortKey="name">
                        Trail
                      </SortHeader>
                      <SortHeader {...sorted} sortKey="flow">
                        Flow
                      </SortHeader>
                      <th scope="col">Compliance</th>
                      <th scope="col">Commit</th>
                      <th scope="col">Branch</th>
                      <th scope="col">Author</th>
                      <SortHeader {...sorted} sortKey="created">
                        Begun
                      </SortHeader>
                    </tr>
                  </thead>
                  <TrailRows input={input} lines={view.lines} />
                </table>
              </section>
            ) : (
              <p class="empty">No trail matches these filters.</p>
            )}
            {asked.compliance ? (
              view.scannedTo ? (
                <p class="pager">
                  <a href={withQuery(input.url, { scan: view.scannedTo })} rel="next">
                    Older trails →
                  </a>
                </p>
              ) : null
            ) : (
              <Pager url={input.url} page={asked.page} perPage={asked.perPage} total={view.total} />
            )}
          </>
        )}
      </>
    );
    return { title: `Trails · ${input.org.name}`, status: view === null ? 404 : 200, content, until: Number.POSITIVE_INFINITY };
  },
});
