import type { Db } from './database.ts';

export interface DeploymentRecord {
  fingerprint: string;
  deployed_at: number;
  artifact_name: string;
  env_name: string;
  snapshot_index: number;
  trail: { flow: string; trail: string } | null;
}

export interface DeploymentFilter {
  start: number;
  end: number;
  envName?: string;
  repoName?: string;
  offset: number;
  limit: number;
}

export interface DeploymentInsert {
  organizationId: number;
  environmentId: number;
  envName: string;
  snapshotIndex: number;
  fingerprint: string;
  artifactName: string;
  deployedAt: number;
  trailId: number | null;
  repoName: string | null;
}

export async function insertDeployments(db: Db, rows: DeploymentInsert[]): Promise<void> {
  if (!rows.length) return;
  await db.insertInto('deployments').values(rows.map((d) => ({
    organization_id: d.organizationId, environment_id: d.environmentId, env_name: d.envName, snapshot_index: d.snapshotIndex,
    fingerprint: d.fingerprint, artifact_name: d.artifactName, deployed_at: d.deployedAt, trail_id: d.trailId, repo_name: d.repoName,
  }))).execute();
  // Keep the per-day counts in step, in the same transaction as the rows.
  const counts = new Map<string, { organization_id: number; env_name: string; repo_name: string; day: number; count: number }>();
  for (const d of rows) {
    const day = Math.floor(d.deployedAt / secondsPerDay);
    const keys: Array<[string, string]> = [['', ''], [d.envName, '']];
    if (d.repoName !== null) keys.push(['', d.repoName], [d.envName, d.repoName]);
    for (const [env_name, repo_name] of keys) {
      const key = JSON.stringify([d.organizationId, env_name, repo_name, day]);
      const entry = counts.get(key) ?? { organization_id: d.organizationId, env_name, repo_name, day, count: 0 };
      entry.count++;
      counts.set(key, entry);
    }
  }
  await db.insertInto('deployment_counts').values([...counts.values()])
    .onConflict((c) => c.columns(['organization_id', 'env_name', 'repo_name', 'day']).doUpdateSet((eb) => ({ count: eb('deployment_counts.count', '+', eb.ref('excluded.count')) })))
    .execute();
}

const secondsPerDay = 86_400;

/**
 * How many deployments fall in [start, end]: whole UTC days from the per-day counts, the two
 * partial days at the edges from the rows themselves, so the cost does not grow with the window.
 */
async function countDeployments(db: Db, organizationId: number, f: DeploymentFilter): Promise<number> {
  /** Rows in [from, to], or [from, to) when `toExclusive`. */
  const rows = (from: number, to: number, toExclusive = false) => {
    let q = db.selectFrom('deployments as d').where('d.organization_id', '=', organizationId).where('d.deployed_at', '>=', from).where('d.deployed_at', toExclusive ? '<' : '<=', to);
    if (f.envName !== undefined) q = q.where('d.env_name', '=', f.envName);
    if (f.repoName !== undefined) q = q.where('d.repo_name', '=', f.repoName);
    return q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((r) => Number(r.n));
  };
  const firstDay = Math.floor(f.start / secondsPerDay);
  const lastDay = Math.floor(f.end / secondsPerDay);
  if (lastDay - firstDay < 2) return rows(f.start, f.end);
  const [head, tail, middle] = await Promise.all([
    rows(f.start, (firstDay + 1) * secondsPerDay, true),
    rows(lastDay * secondsPerDay, f.end),
    db.selectFrom('deployment_counts').where('organization_id', '=', organizationId)
      .where('env_name', '=', f.envName ?? '').where('repo_name', '=', f.repoName ?? '')
      .where('day', '>', firstDay).where('day', '<', lastDay)
      .select((eb) => eb.fn.sum<number>('count').as('n')).executeTakeFirstOrThrow(),
  ]);
  return head + tail + Number(middle.n ?? 0);
}

/** Deployments in the window, newest first. */
export async function listDeployments(db: Db, organizationId: number, f: DeploymentFilter): Promise<{ items: DeploymentRecord[]; total: number }> {
  let base = db.selectFrom('deployments as d').where('d.organization_id', '=', organizationId)
    .where('d.deployed_at', '>=', f.start).where('d.deployed_at', '<=', f.end);
  if (f.envName !== undefined) base = base.where('d.env_name', '=', f.envName);
  if (f.repoName !== undefined) base = base.where('d.repo_name', '=', f.repoName);
  const total = await countDeployments(db, organizationId, f);
  const rows = f.limit > 0
    ? await base.leftJoin('trails as t', 't.id', 'd.trail_id').leftJoin('flows as fl', 'fl.id', 't.flow_id')
      .select(['d.fingerprint', 'd.deployed_at', 'd.artifact_name', 'd.env_name', 'd.snapshot_index', 't.name as trail_name', 'fl.name as flow_name'])
      .orderBy('d.deployed_at', 'desc').orderBy('d.id', 'desc').limit(f.limit).offset(f.offset).execute()
    : [];
  return {
    total,
    items: rows.map((r) => ({
      fingerprint: r.fingerprint, deployed_at: Number(r.deployed_at), artifact_name: r.artifact_name, env_name: r.env_name,
      snapshot_index: Number(r.snapshot_index), trail: r.trail_name && r.flow_name ? { flow: r.flow_name, trail: r.trail_name } : null,
    })),
  };
}
