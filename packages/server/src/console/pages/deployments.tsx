/**
 * The organisation's deployments with the API's filters (`env_name`, `repo_name`, `start_ts`,
 * `end_ts`, `page`, `per_page`) and the console's `compliance` (compliant or non-compliant when
 * deployed), newest first, each linked to its environment's snapshot, its trail and the approval
 * that covers it, and a chart of deployments per UTC day under the API's filters.
 */
import { defaultWindowSeconds } from '../../operations/list-deployments.ts';
import { DeploymentsPerDayChart } from '../charts.tsx';
import { DeploymentTable, readDeployments, windowLastsUntil } from '../components/deployment-list.tsx';
import { Empty } from '../components/empty.tsx';
import { Pager } from '../components/table.tsx';
import { utc, utcLastsUntil } from '../components/time.tsx';
import { orgHref, queryNumber } from '../links.ts';
import { definePage, type PageInput } from '../page.ts';

/**
 * A time from the query: Unix seconds as the API takes them, or, typed by a person, a date
 * (`2026-11-01`, the start of that UTC day) or a UTC time (`2026-11-01T14:00`); undefined when absent or neither.
 */
export function queryTime(value: string | null): number | undefined {
  const text = value?.trim() ?? '';
  if (text === '') return undefined;
  if (/^\d{1,12}(\.\d+)?$/.test(text)) return Number(text);
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?))?$/.exec(text);
  const at = match ? Date.parse(`${match[1]}T${match[2] ?? '00:00'}Z`) / 1000 : NaN;
  return Number.isFinite(at) ? at : undefined;
}

const perPageChoices = [10, 20, 50, 100];
const compliances = ['compliant', 'non-compliant'] as const;
const secondsPerDay = 86_400;

/**
 * The chart's counts per UTC day, remembered until the next commit (page-cache.ts) by the days
 * they cover: `deploymentsPerDay` reads whole days, so its answer is a function of the days and
 * of what is stored. The API's list has no chart.
 */
function perDay(input: PageInput, filter: { envName?: string; repoName?: string; firstDay: number; lastDay: number }) {
  const { envName, repoName, firstDay, lastDay } = filter;
  return input.cache.read('deployments-per-day', { org: input.org.id, envName, repoName, firstDay, lastDay }, () =>
    input.store.deploymentsPerDay(input.org.id, { start: firstDay * secondsPerDay, end: lastDay * secondsPerDay, envName, repoName }),
  );
}

export const deploymentsPage = definePage({
  path: '/:org/deployments',
  // Its HTML is remembered until the next commit or until anything it shows of the time moves (`until`).
  remembered: true,
  async render(input) {
    const { query, now, url } = input;
    const end = queryTime(query.get('end_ts')) ?? now;
    const asked = queryTime(query.get('start_ts'));
    const start = asked !== undefined && asked <= end ? asked : end - defaultWindowSeconds;
    const envName = query.get('env_name') || undefined;
    const repoName = query.get('repo_name') || undefined;
    const compliance = compliances.find((c) => c === query.get('compliance'));
    const perPage = queryNumber(query, 'per_page', 20, 1, 100);
    const page = queryNumber(query, 'page', 1, 1, 100_000);
    const compliant = compliance === undefined ? undefined : compliance === 'compliant';
    const endsNow = queryTime(query.get('end_ts')) === undefined;
    const [{ rows, total }, days, windowUntil] = await Promise.all([
      readDeployments(input, { start, end, envName, repoName, compliant, offset: (page - 1) * perPage, limit: perPage }),
      perDay(input, { envName, repoName, firstDay: Math.floor(start / secondsPerDay), lastDay: Math.floor(end / secondsPerDay) }),
      endsNow ? windowLastsUntil(input, { start, end, asked }) : Infinity,
    ]);
    const approvals = await input.store.approvalsOfFingerprints(
      input.org.id,
      rows.map((r) => r.fingerprint),
    );
    const chartDescribed = [envName && `to ${envName}`, repoName && `from ${repoName}`].filter(Boolean).join(' ');
    const described = [compliance && `${compliance} when deployed`, chartDescribed].filter(Boolean).join(' ');
    // What it shows of the time, besides each row's "3 min ago" (noted as it is written): the window's edges to the minute (and so its days) when it ends now.
    const until = endsNow ? Math.min(windowUntil, utcLastsUntil(now)) : Infinity;
    return {
      until,
      title: `Deployments · ${input.org.name}`,
      content: (
        <>
          <p class="crumbs">
            <a href={orgHref(input)}>{input.org.name}</a> › deployments
          </p>
          <h1>Deployments</h1>
          <form class="filters" method="get" action={orgHref(input, 'deployments')}>
            <label>
              Environment <input name="env_name" value={envName ?? ''} placeholder="any" />
            </label>
            <label>
              Repository <input name="repo_name" value={repoName ?? ''} placeholder="any" />
            </label>
            <label>
              From (UTC) <input name="start_ts" value={asked === undefined ? '' : (query.get('start_ts') ?? '')} placeholder="28 days before the end" />
            </label>
            <label>
              To (UTC) <input name="end_ts" value={query.get('end_ts') ?? ''} placeholder="now" />
            </label>
            <label>
              Compliance when deployed{' '}
              <select name="compliance">
                <option value="">All</option>
                <option value="compliant" selected={compliance === 'compliant'}>
                  Compliant
                </option>
                <option value="non-compliant" selected={compliance === 'non-compliant'}>
                  Non-compliant
                </option>
              </select>
            </label>
            <label>
              Per page{' '}
              <select name="per_page">
                {perPageChoices.map((n) => (
                  <option value={n} selected={n === perPage}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit">Filter</button>
          </form>
          <p class="summary" data-testid="deployments-summary">
            {`${total} ${total === 1 ? 'deployment' : 'deployments'}${described ? ` ${described}` : ''} from ${utc(start)} to ${utc(end)}.`}
          </p>
          <DeploymentsPerDayChart id="deployments-per-day" days={days} title={`Deployments per UTC day${chartDescribed ? ` ${chartDescribed}` : ''}`} />
          {rows.length === 0 ? (
            <Empty
              example={`curl -X PUT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\\n  ${input.apiBase}/environments/${input.org.name}/ENV/report/K8S -d '{"artifacts": [...]}'`}
            >
              No deployment matches. A report of an environment in which a new artifact runs records its deployment.
            </Empty>
          ) : (
            <>
              <DeploymentTable at={input} rows={rows} now={now} approvals={approvals} caption="Deployments, newest first" />
              <Pager url={url} page={page} perPage={perPage} total={total} />
            </>
          )}
        </>
      ),
    };
  },
});
