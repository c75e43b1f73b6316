/**
 * The SQL the server runs for the two list operations (packages/server/src/store/deployments.ts
 * and environments.ts, as Kysely compiles it), written out by hand so that the read baseline
 * runs the same statements with nothing in between. read-path.ts checks, before measuring,
 * that the baseline and the server answer every query with the same total and the same page.
 */

export interface Statement {
  sql: string;
  params: unknown[];
}

const defaultWindowSeconds = 28 * 24 * 60 * 60;
const secondsPerDay = 86_400;

/** The parts of a list request the queries depend on. */
export function deploymentFilter(q: URLSearchParams, now: number) {
  const end = q.has('end_ts') ? Number(q.get('end_ts')) : now;
  const start = q.has('start_ts') ? Number(q.get('start_ts')) : end - defaultWindowSeconds;
  const perPage = Number(q.get('per_page') ?? 15);
  const page = Number(q.get('page') ?? 1);
  return { start, end, envName: q.get('env_name') ?? undefined, repoName: q.get('repo_name') ?? undefined, limit: perPage, offset: (page - 1) * perPage };
}
export type DeploymentFilter = ReturnType<typeof deploymentFilter>;

function deploymentWhere(orgId: number, f: DeploymentFilter, from: number, to: number): Statement {
  let sql = `where "d"."organization_id" = ? and "d"."deployed_at" >= ? and "d"."deployed_at" <= ?`;
  const params: unknown[] = [orgId, from, to];
  if (f.envName !== undefined) (sql += ` and "d"."env_name" = ?`), params.push(f.envName);
  if (f.repoName !== undefined) (sql += ` and "d"."repo_name" = ?`), params.push(f.repoName);
  return { sql, params };
}

/**
 * total_count: whole UTC days from the per-day counts, the partial days at the edges from the
 * rows (three statements), or the rows alone when the window spans less than two days.
 */
export function deploymentCount(orgId: number, f: DeploymentFilter): Statement[] {
  const rows = (from: number, to: number): Statement => {
    const w = deploymentWhere(orgId, f, from, to);
    return { sql: `select count(*) as "n" from "deployments" as "d" ${w.sql}`, params: w.params };
  };
  const firstDay = Math.floor(f.start / secondsPerDay);
  const lastDay = Math.floor(f.end / secondsPerDay);
  if (lastDay - firstDay < 2) return [rows(f.start, f.end)];
  return [
    rows(f.start, (firstDay + 1) * secondsPerDay - 1e-6),
    rows(lastDay * secondsPerDay, f.end),
    {
      sql: `select sum("count") as "n" from "deployment_counts" where "organization_id" = ? and "env_name" = ? and "repo_name" = ? and "day" > ? and "day" < ?`,
      params: [orgId, f.envName ?? '', f.repoName ?? '', firstDay, lastDay],
    },
  ];
}

export function deploymentPage(orgId: number, f: DeploymentFilter): Statement {
  const w = deploymentWhere(orgId, f, f.start, f.end);
  return {
    sql: `select "d"."fingerprint", "d"."deployed_at", "d"."artifact_name", "d"."env_name", "d"."snapshot_index", "t"."name" as "trail_name", "fl"."name" as "flow_name" `
      + `from "deployments" as "d" left join "trails" as "t" on "t"."id" = "d"."trail_id" left join "flows" as "fl" on "fl"."id" = "t"."flow_id" `
      + `${w.sql} order by "d"."deployed_at" desc, "d"."id" desc limit ? offset ?`,
    params: [...w.params, f.limit, f.offset],
  };
}

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const sorts = ['name', 'last_modified_at', 'last_changed_at'] as const;

/** Count and page statements of the environment list, for `name`, one `tag`, `sort`, `sort_direction`. */
export function environmentStatements(orgId: number, q: URLSearchParams): { count: Statement; page: Statement } {
  let where = `where "e"."organization_id" = ?`;
  const params: unknown[] = [orgId];
  const name = q.get('name');
  if (name) (where += ` and e.name_lower like ? escape '\\'`), params.push(`%${likeEscape(name.toLowerCase())}%`);
  const tag = q.get('tag');
  if (tag) {
    const colon = tag.indexOf(':');
    if (colon < 0) {
      where += ` and exists (select "t"."key" from "environment_tags" as "t" where "t"."environment_id" = "e"."id" and "t"."key" = ?)`;
      params.push(tag);
    } else {
      where += ` and exists (select "t"."key" from "environment_tags" as "t" where "t"."environment_id" = "e"."id" and ("t"."key" = ? and "t"."value" = ?))`;
      params.push(tag.slice(0, colon), tag.slice(colon + 1));
    }
  }
  const sort = sorts.find((s) => s === q.get('sort')) ?? 'name';
  const direction = q.get('sort_direction') === 'desc' ? 'desc' : 'asc';
  const perPage = Number(q.get('per_page') ?? 20);
  const page = Number(q.get('page') ?? 1);
  const nameDirection = sort === 'name' ? direction : 'asc';
  const order = (sort === 'name' ? '' : `e."${sort}" is null ${direction === 'asc' ? 'desc' : 'asc'}, "e"."${sort}" ${direction}, `) + `"e"."name_lower" ${nameDirection}, "e"."name" ${nameDirection}`;
  return {
    count: { sql: `select count(*) as "total" from "environments" as "e" ${where}`, params },
    page: { sql: `select "e".* from "environments" as "e" ${where} order by ${order} limit ? offset ?`, params: [...params, perPage, (page - 1) * perPage] },
  };
}

/** `?` placeholders as PostgreSQL's `$1, $2, ...` (no statement here has a literal `?`). */
export function numbered(s: Statement): Statement {
  let n = 0;
  return { sql: s.sql.replace(/\?/g, () => `$${++n}`), params: s.params };
}

/** A deployment row as the API answers it (without links). */
export const deploymentItem = (r: Record<string, unknown>) => ({
  fingerprint: r.fingerprint, deployed_at: Number(r.deployed_at), artifact_name: r.artifact_name, env_name: r.env_name,
  snapshot_index: Number(r.snapshot_index), trail: r.trail_name && r.flow_name ? { flow: r.flow_name, trail: r.trail_name } : null,
});

const json = (text: unknown, fallback: unknown) => (typeof text === 'string' ? JSON.parse(text) : fallback);

/** An environment row as the API answers it. */
export const environmentItem = (org: string, r: Record<string, unknown>) => ({
  org, name: r.name, type: r.type, description: r.description, last_modified_at: Number(r.last_modified_at),
  include_scaling: Number(r.include_scaling) === 1, tags: json(r.tags, {}),
  last_reported_at: Number(r.last_reported_at ?? 0),
  last_changed_at: Number(r.last_changed_at ?? 0),
  state: r.state !== null && Number(r.state) === 1,
  policies: json(r.policies, []), included_environments: json(r.included_environments, []),
});
