/**
 * Seeds the read benchmark's data straight into a database the server has migrated: the
 * organisation `bench` with 10,000 environments (three tags each), the first 50 of which hold
 * the deployments, spread evenly over the last 365 days (repo_name from 20 repositories, no
 * trail), and the per-day counts the server keeps beside them (filled with the statement of
 * migration 0004). Big transactions; deterministic data.
 */
import { BetterSqlite3 } from '@trailproof/server/testing';
import pg from 'pg';

export const seedShape = { environments: 10_000, deploymentEnvironments: 50, repos: 20, days: 365 } as const;
const stages = ['prod', 'staging', 'qa', 'dev', 'perf'];
const regions = ['eu', 'us', 'ap'];
const services = [
  'payments',
  'ledger',
  'checkout',
  'catalog',
  'search',
  'identity',
  'billing',
  'notify',
  'gateway',
  'reports',
  'inventory',
  'pricing',
  'shipping',
  'orders',
  'profile',
  'media',
  'audit',
  'metrics',
  'config',
  'scheduler',
];
const tiers = ['gold', 'silver', 'bronze'];

export function environmentName(i: number): string {
  return `${stages[i % 5]}-${regions[Math.floor(i / 5) % 3]}-${services[Math.floor(i / 15) % 20]}-${String(i).padStart(5, '0')}`;
}

/** What the benchmark's queries filter on: values that exist in the seeded data. */
export const seeded = {
  /** One of the 50 environments with deployments (1/50 of them). */
  envName: environmentName(0),
  /** 1/20 of the deployments. */
  repoName: 'acme/service-7',
  /** 500 of the 10,000 environment names contain it. */
  nameSubstring: 'payments',
  /** 400 of the 10,000 environments. */
  tag: 'team:team-7',
};

/** A small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface EnvironmentRow {
  name: string;
  tags: Record<string, string>;
  last_modified_at: number;
  last_reported_at: number | null;
  last_changed_at: number | null;
  state: number | null;
}

function environmentRows(now: number): EnvironmentRow[] {
  const rnd = random(1);
  const year = seedShape.days * 86_400;
  return Array.from({ length: seedShape.environments }, (_, i) => {
    const reported = rnd() < 0.9; // 10% never reported: null last_changed_at, sorted last
    return {
      name: environmentName(i),
      tags: { team: `team-${i % 25}`, tier: tiers[i % 3]!, region: regions[Math.floor(i / 5) % 3]! },
      last_modified_at: now - rnd() * year,
      last_reported_at: reported ? now - rnd() * 86_400 : null,
      last_changed_at: reported ? now - rnd() * year : null,
      state: reported ? (rnd() < 0.8 ? 1 : 0) : null,
    };
  });
}

/** Deployments in batches of column arrays, oldest first. */
function* deploymentBatches(count: number, envIds: number[], now: number, batch: number) {
  const rnd = random(2);
  const span = seedShape.days * 86_400;
  const snapshot = new Array<number>(envIds.length).fill(0);
  const hex = () =>
    Math.floor(rnd() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  for (let from = 0; from < count; from += batch) {
    const n = Math.min(batch, count - from);
    const cols = {
      environment_id: [] as number[],
      env_name: [] as string[],
      snapshot_index: [] as number[],
      fingerprint: [] as string[],
      artifact_name: [] as string[],
      deployed_at: [] as number[],
      repo_name: [] as string[],
    };
    for (let i = from; i < from + n; i++) {
      const env = Math.floor(rnd() * envIds.length);
      const repo = Math.floor(rnd() * seedShape.repos);
      cols.environment_id.push(envIds[env]!);
      cols.env_name.push(environmentName(env));
      cols.snapshot_index.push(++snapshot[env]!);
      cols.fingerprint.push(hex() + hex() + hex() + hex() + hex() + hex() + hex() + hex());
      cols.artifact_name.push(`registry.example.com/acme/service-${repo}:1.${i}`);
      cols.deployed_at.push(now - span + ((i + rnd()) * span) / count);
      cols.repo_name.push(`acme/service-${repo}`);
    }
    yield { n, cols };
  }
}

const countsSql = `insert into deployment_counts (organization_id, env_name, repo_name, day, count)
  select organization_id, env_name, repo_name, day, count(*) from (
    select organization_id, '' as env_name, '' as repo_name, cast(floor(deployed_at / 86400) as integer) as day from deployments
    union all select organization_id, env_name, '', cast(floor(deployed_at / 86400) as integer) from deployments
    union all select organization_id, '', repo_name, cast(floor(deployed_at / 86400) as integer) from deployments where repo_name is not null
    union all select organization_id, env_name, repo_name, cast(floor(deployed_at / 86400) as integer) from deployments where repo_name is not null
  ) as d group by organization_id, env_name, repo_name, day`;

/** Per-hour counts of each organisation's deployments, as the server keeps them (migration 0011). */
const hourCountsSql = `insert into deployment_hour_counts (organization_id, hour, count)
  select organization_id, cast(floor(deployed_at / 3600) as integer), count(*) from deployments
  group by organization_id, cast(floor(deployed_at / 3600) as integer)`;

/** Each organisation's environment count, as the server keeps it (migration 0008). */
const environmentCountSql = `update organizations set environment_count = (select count(*) from environments where environments.organization_id = organizations.id)`;

/**
 * Seeds a migrated SQLite file (the organisation `bench` must exist: `token create` makes it).
 * No ANALYZE: the server never runs one, so its planner works without statistics here too.
 */
export function seedSqlite(file: string, deployments: number, now: number): void {
  const db = new BetterSqlite3(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const orgId = Number((db.prepare(`select id from organizations where name = 'bench'`).get() as { id: number }).id);
    const envIds: number[] = [];
    db.transaction(() => {
      const env =
        db.prepare(`insert into environments (organization_id, name, name_lower, type, description, include_scaling, tags, policies, included_environments, space_id, last_modified_at, last_reported_at, last_changed_at, state)
        values (?, ?, ?, 'K8S', 'A benchmark environment', 0, ?, '[]', '[]', null, ?, ?, ?, ?)`);
      const tag = db.prepare(`insert into environment_tags (environment_id, key, value) values (?, ?, ?)`);
      for (const e of environmentRows(now)) {
        const id = Number(
          env.run(orgId, e.name, e.name.toLowerCase(), JSON.stringify(e.tags), e.last_modified_at, e.last_reported_at, e.last_changed_at, e.state)
            .lastInsertRowid,
        );
        if (envIds.length < seedShape.deploymentEnvironments) envIds.push(id);
        for (const [k, v] of Object.entries(e.tags)) tag.run(id, k, v);
      }
      db.prepare(environmentCountSql).run();
    })();
    const insert =
      db.prepare(`insert into deployments (organization_id, environment_id, env_name, snapshot_index, fingerprint, artifact_name, deployed_at, trail_id, repo_name)
      values (?, ?, ?, ?, ?, ?, ?, null, ?)`);
    for (const { n, cols: c } of deploymentBatches(deployments, envIds, now, 100_000)) {
      db.transaction(() => {
        for (let i = 0; i < n; i++)
          insert.run(orgId, c.environment_id[i], c.env_name[i], c.snapshot_index[i], c.fingerprint[i], c.artifact_name[i], c.deployed_at[i], c.repo_name[i]);
      })();
    }
    db.exec(countsSql);
    db.exec(hourCountsSql);
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** Seeds a migrated PostgreSQL database the same way (multi-row inserts from arrays, 20,000 rows a statement). */
export async function seedPostgres(url: string, deployments: number, now: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const orgId = Number((await client.query(`select id from organizations where name = 'bench'`)).rows[0].id);
    const envs = environmentRows(now);
    await client.query('begin');
    const ids = await client.query(
      `insert into environments (organization_id, name, name_lower, type, description, include_scaling, tags, policies, included_environments, last_modified_at, last_reported_at, last_changed_at, state)
      select $1, name, lower(name), 'K8S', 'A benchmark environment', 0, tags, '[]', '[]', m, r, c, s
      from unnest($2::text[], $3::text[], $4::float8[], $5::float8[], $6::float8[], $7::int[]) as u(name, tags, m, r, c, s) returning id, name`,
      [
        orgId,
        envs.map((e) => e.name),
        envs.map((e) => JSON.stringify(e.tags)),
        envs.map((e) => e.last_modified_at),
        envs.map((e) => e.last_reported_at),
        envs.map((e) => e.last_changed_at),
        envs.map((e) => e.state),
      ],
    );
    const idOf = new Map(ids.rows.map((r: { id: number; name: string }) => [r.name, Number(r.id)]));
    const tagRows = envs.flatMap((e) => Object.entries(e.tags).map(([k, v]) => [idOf.get(e.name)!, k, v] as const));
    await client.query(`insert into environment_tags (environment_id, key, value) select * from unnest($1::bigint[], $2::text[], $3::text[])`, [
      tagRows.map((t) => t[0]),
      tagRows.map((t) => t[1]),
      tagRows.map((t) => t[2]),
    ]);
    await client.query(environmentCountSql);
    await client.query('commit');
    const envIds = envs.slice(0, seedShape.deploymentEnvironments).map((e) => idOf.get(e.name)!);
    for (const { cols: c } of deploymentBatches(deployments, envIds, now, 20_000)) {
      await client.query(
        `insert into deployments (organization_id, environment_id, env_name, snapshot_index, fingerprint, artifact_name, deployed_at, trail_id, repo_name)
        select $1, e, en, s, f, a, t, null, r from unnest($2::bigint[], $3::text[], $4::int[], $5::text[], $6::text[], $7::float8[], $8::text[]) as u(e, en, s, f, a, t, r)`,
        [orgId, c.environment_id, c.env_name, c.snapshot_index, c.fingerprint, c.artifact_name, c.deployed_at, c.repo_name],
      );
    }
    await client.query(countsSql);
    await client.query(hourCountsSql);
    // What autovacuum does shortly after a bulk load (PostgreSQL 13+ vacuums after many inserts
    // too): statistics for the planner, and the visibility map that lets index-only scans skip the heap.
    await client.query('vacuum analyze');
  } finally {
    await client.end();
  }
}
