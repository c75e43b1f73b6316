/**
 * The SQL the server runs for the two list operations (packages/server/src/store/deployments.ts
 * and environments.ts, as Kysely compiles it), written out by hand so that the read baseline
 * runs the same statements with nothing in between. read-path.ts checks, before measuring,
 * that the baseline and the server answer every query with the same body.
 */

export interface Statement {
  sql: string;
  params: unknown[];
}

const defaultWindowSeconds = 28 * 24 * 60 * 60;
const secondsPerDay = 86_400;
const secondsPerHour = 3_600;

/** The parts of a list request the queries depend on. */
export function deploymentFilter(q: URLSearchParams, now: number) {
  const end = q.has('end_ts') ? Number(q.get('end_ts')) : now;
  const start = q.has('start_ts') ? Number(q.get('start_ts')) : end - defaultWindowSeconds;
  const perPage = Number(q.get('per_page') ?? 15);
  const page = Number(q.get('page') ?? 1);
  return { start, end, envName: q.get('env_name') ?? undefined, repoName: q.get('repo_name') ?? undefined, limit: perPage, offset: (page - 1) * perPage };
}
export type DeploymentFilter = ReturnType<typeof deploymentFilter>;

/** The filter's rows in [from, to], or [from, to) when `toExclusive`, as the server's `windowRows`. */
function deploymentRows(orgId: number, f: Pick<DeploymentFilter, 'envName' | 'repoName'>, from: number, to: number, toExclusive = false): Statement {
  let sql = `where "d"."organization_id" = ? and "d"."deployed_at" >= ? and "d"."deployed_at" ${toExclusive ? '<' : '<='} ?`;
  const params: unknown[] = [orgId, from, to];
  if (f.envName !== undefined) (sql += ` and "d"."env_name" = ?`), params.push(f.envName);
  if (f.repoName !== undefined) (sql += ` and "d"."repo_name" = ?`), params.push(f.repoName);
  return { sql, params };
}

/**
 * total_count in one statement: without a filter, the partial hours at the edges from the rows,
 * whole hours and days from the per-hour and per-day counts (five scalar subqueries); with one,
 * whole UTC days from the per-day counts and the partial days at the edges from the rows (three);
 * the rows alone when the window spans less than two hours (no filter) or two days (a filter).
 */
export function deploymentCount(orgId: number, f: Pick<DeploymentFilter, 'start' | 'end' | 'envName' | 'repoName'>): Statement {
  const rows = (from: number, to: number, toExclusive = false): Statement => {
    const w = deploymentRows(orgId, f, from, to, toExclusive);
    return { sql: `(select count(*) as "n" from "deployments" as "d" ${w.sql})`, params: w.params };
  };
  const days = `coalesce((select sum("count") as "n" from "deployment_counts" where "organization_id" = ? and "env_name" = ? and "repo_name" = ? and "day" > ? and "day" < ?), 0)`;
  const firstDay = Math.floor(f.start / secondsPerDay);
  const lastDay = Math.floor(f.end / secondsPerDay);
  const startHour = Math.floor(f.start / secondsPerHour);
  const endHour = Math.floor(f.end / secondsPerHour);
  if (f.envName === undefined && f.repoName === undefined && endHour - startHour >= 2) {
    const head = rows(f.start, (startHour + 1) * secondsPerHour, true);
    const tail = rows(endHour * secondsPerHour, f.end);
    const hours = `coalesce((select sum("count") as "n" from "deployment_hour_counts" where "organization_id" = ? and "hour" > ? and "hour" < ?), 0)`;
    return {
      sql: `select ${head.sql}\n      + ${hours}\n      + ${days}\n      + ${hours}\n      + ${tail.sql} as "n"`,
      params: [
        ...head.params,
        orgId,
        startHour,
        Math.min(endHour, (firstDay + 1) * 24),
        orgId,
        '',
        '',
        firstDay,
        lastDay,
        orgId,
        Math.max(lastDay, firstDay + 1) * 24 - 1,
        endHour,
        ...tail.params,
      ],
    };
  }
  if (lastDay - firstDay < 2) {
    const all = rows(f.start, f.end);
    return { sql: `select ${all.sql} as "n"`, params: all.params };
  }
  const head = rows(f.start, (firstDay + 1) * secondsPerDay, true);
  const tail = rows(lastDay * secondsPerDay, f.end);
  return {
    sql: `select ${head.sql}\n      + ${tail.sql}\n      + ${days} as "n"`,
    params: [...head.params, ...tail.params, orgId, f.envName ?? '', f.repoName ?? '', firstDay, lastDay],
  };
}

/** From this offset on, the server starts a page by skipping whole days (its deepPageOffset). */
const deepPageOffset = 1_000;
const daysPerRead = 32;

/** The newest partial day's count: what a deep page first skips (the server's deepPageStart), or none for a shallow page. */
export function deepPageNewest(orgId: number, f: DeploymentFilter): Statement | undefined {
  const firstDay = Math.floor(f.start / secondsPerDay);
  const lastDay = Math.floor(f.end / secondsPerDay);
  if (f.offset < deepPageOffset || lastDay - firstDay < 2) return undefined;
  return deploymentCount(orgId, { ...f, start: lastDay * secondsPerDay });
}

/** Per-day counts of whole days after the window's first and before `before`, newest first (the server's daysBefore). */
export function deepPageDays(orgId: number, f: DeploymentFilter, before: number, limit: number): Statement {
  return {
    sql: `select "day", "count" from "deployment_counts" where "organization_id" = ? and "env_name" = ? and "repo_name" = ? and "day" > ? and "day" < ? order by "day" desc limit ? + 0`,
    params: [orgId, f.envName ?? '', f.repoName ?? '', Math.floor(f.start / secondsPerDay), before, limit],
  };
}

/** The window's end and the offset left once the days newer than the page are skipped (the server's deepPageStart). */
export async function deepPageCut(
  orgId: number,
  f: DeploymentFilter,
  all: (s: Statement) => Promise<Array<Record<string, unknown>>>,
): Promise<DeploymentFilter & { endExclusive: boolean }> {
  const newestStatement = deepPageNewest(orgId, f);
  if (!newestStatement) return { ...f, endExclusive: false };
  let skipped = Number((await all(newestStatement))[0]?.n ?? 0);
  if (skipped > f.offset) return { ...f, endExclusive: false };
  let cut = Math.floor(f.end / secondsPerDay);
  const cutHere = () => ({ ...f, end: cut * secondsPerDay, offset: f.offset - skipped, endExclusive: true });
  for (;;) {
    const days = await all(deepPageDays(orgId, f, cut, daysPerRead));
    for (const { day, count } of days) {
      if (skipped + Number(count) > f.offset) return cutHere();
      skipped += Number(count);
      cut = Number(day);
    }
    if (days.length < daysPerRead) return cutHere();
  }
}

/** The page's ids from the covering index first (a deferred join), then their rows, trails and flows. */
export function deploymentPage(orgId: number, f: DeploymentFilter, endExclusive = false): Statement {
  const w = deploymentRows(orgId, f, f.start, f.end, endExclusive);
  return {
    sql:
      `select "d"."fingerprint", "d"."deployed_at", "d"."artifact_name", "d"."env_name", "d"."snapshot_index", "t"."name" as "trail_name", "fl"."name" as "flow_name" ` +
      `from (select "d"."id" from "deployments" as "d" ${w.sql} order by "d"."deployed_at" desc, "d"."id" desc limit ? + 0 offset ?) as "p" ` +
      `inner join "deployments" as "d" on "d"."id" = "p"."id" left join "trails" as "t" on "t"."id" = "d"."trail_id" left join "flows" as "fl" on "fl"."id" = "t"."flow_id" ` +
      `order by "d"."deployed_at" desc, "d"."id" desc`,
    params: [...w.params, f.limit, f.offset],
  };
}

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const sorts = ['name', 'last_modified_at', 'last_changed_at'] as const;

/** Count and page statements of the environment list, for `name`, one `tag`, `sort`, `sort_direction`. */
export function environmentStatements(orgId: number, q: URLSearchParams, kind: 'sqlite' | 'postgres'): { count: Statement; page: Statement } {
  // A tag filter starts from the matching tags and joins their environments, as the server does.
  let from = `"environments" as "e"`;
  const params: unknown[] = [];
  const tag = q.get('tag');
  if (tag) {
    const colon = tag.indexOf(':');
    const match = colon < 0 ? `"t"."key" = ?` : `("t"."key" = ? and "t"."value" = ?)`;
    from = `(select distinct "t"."environment_id" from "environment_tags" as "t" where ${match}) as "x" inner join "environments" as "e" on "e"."id" = "x"."environment_id"`;
    params.push(...(colon < 0 ? [tag] : [tag.slice(0, colon), tag.slice(colon + 1)]));
  }
  let where = `where "e"."organization_id" = ?`;
  params.push(orgId);
  const name = q.get('name');
  if (name) (where += ` and e.name_lower like ? escape '\\'`), params.push(`%${likeEscape(name.toLowerCase())}%`);
  const sort = sorts.find((s) => s === q.get('sort')) ?? 'name';
  const direction = q.get('sort_direction') === 'desc' ? 'desc' : 'asc';
  const perPage = Number(q.get('per_page') ?? 20);
  const page = Number(q.get('page') ?? 1);
  const nameDirection = sort === 'name' ? direction : 'asc';
  const order =
    (sort === 'name' ? '' : `"e"."${sort}" ${direction === 'asc' ? 'asc nulls first' : 'desc nulls last'}, `) +
    `"e"."name_lower" ${nameDirection}, "e"."name" ${nameDirection}`;
  // Every environment of the organisation (no filter): the count kept on its row, as the server reads it.
  const needle = name?.toLowerCase();
  const count =
    !tag && !name
      ? { sql: `select "environment_count" as "total" from "organizations" where "id" = ?`, params: [orgId] }
      : // SQLite, a name of three characters or more (and no tag): counted from the trigram index of names, as the server does.
        kind === 'sqlite' && !tag && needle && [...needle].length >= 3
        ? {
            sql: `select count(*) as "total" from (select rowid as environment_id from environment_names where environment_names match ?) as "x" inner join "environments" as "e" on "e"."id" = "x"."environment_id" where "e"."organization_id" = ?`,
            params: [`"${needle.replace(/"/g, '""')}"`, orgId],
          }
        : { sql: `select count(*) as "total" from ${from} ${where}`, params };
  return {
    count,
    page: { sql: `select "e".* from ${from} ${where} order by ${order} limit ? + 0 offset ?`, params: [...params, perPage, (page - 1) * perPage] },
  };
}

/**
 * A statement as the server compiles it for PostgreSQL: `?` placeholders as `$1, $2, ...` (no
 * statement here has a literal `?`), and a LIMIT bound as is (the `+ 0` is SQLite's, see the
 * server's sqliteDialect).
 */
export function numbered(s: Statement): Statement {
  let n = 0;
  return { sql: s.sql.replace(/limit \? \+ 0/g, 'limit ?').replace(/\?/g, () => `$${++n}`), params: s.params };
}

/** `a/b` with each segment URL-encoded. */
const pathOf = (...segments: Array<string | number>) => segments.map((s) => encodeURIComponent(String(s))).join('/');

/** A deployment row as the API answers it, `_links` under `/api/v2` of the organisation `org`. */
export const deploymentItem = (org: string, r: Record<string, unknown>) => {
  const environment = `/api/v2/environments/${pathOf(org, String(r.env_name))}`;
  const trail = r.trail_name && r.flow_name ? { trail: { href: `/api/v2/trails/${pathOf(org, String(r.flow_name), String(r.trail_name))}` } } : {};
  return {
    fingerprint: r.fingerprint,
    deployed_at: Number(r.deployed_at),
    artifact_name: r.artifact_name,
    env_name: r.env_name,
    snapshot_index: Number(r.snapshot_index),
    _links: { environment: { href: environment }, snapshot: { href: `${environment}/snapshots/${Number(r.snapshot_index)}` }, ...trail },
  };
};

/**
 * A list page's envelope as the API answers it: its figures, the items under `key`, and `_links`
 * whose hrefs are the request's path and query with only `page` changed (in its place).
 */
export function pageEnvelope(path: string, search: string, page: number, perPage: number, total: number, key: string, items: unknown[]) {
  const totalPages = perPage > 0 ? Math.ceil(total / perPage) : 0;
  const self = { href: path + search };
  const entries = [...new URLSearchParams(search)];
  const at = entries.findIndex(([name]) => name === 'page');
  const before = String(new URLSearchParams(at < 0 ? entries : entries.slice(0, at)));
  const after = at < 0 ? '' : String(new URLSearchParams(entries.slice(at + 1).filter(([name]) => name !== 'page')));
  const to = (n: number) => ({ href: `${path}?${before}${before ? '&' : ''}page=${n}${after ? `&${after}` : ''}` });
  const links =
    totalPages === 0
      ? { self, first: null, prev: null, next: null, last: null }
      : { self, first: to(1), prev: page > 1 ? to(Math.min(page - 1, totalPages)) : null, next: page < totalPages ? to(page + 1) : null, last: to(totalPages) };
  return { page, per_page: perPage, total_pages: totalPages, total_count: total, [key]: items, _links: links };
}

const json = (text: unknown, fallback: unknown) => (typeof text === 'string' ? JSON.parse(text) : fallback);

/** An environment row as the API answers it. */
export const environmentItem = (org: string, r: Record<string, unknown>) => ({
  org,
  name: r.name,
  type: r.type,
  description: r.description,
  last_modified_at: Number(r.last_modified_at),
  include_scaling: Number(r.include_scaling) === 1,
  tags: json(r.tags, {}),
  last_reported_at: Number(r.last_reported_at ?? 0),
  last_changed_at: Number(r.last_changed_at ?? 0),
  state: r.state !== null && Number(r.state) === 1,
  policies: json(r.policies, []),
  included_environments: json(r.included_environments, []),
});
