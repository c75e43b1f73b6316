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
}

/** Deployments in the window, newest first. */
export async function listDeployments(db: Db, organizationId: number, f: DeploymentFilter): Promise<{ items: DeploymentRecord[]; total: number }> {
  let base = db.selectFrom('deployments as d').where('d.organization_id', '=', organizationId)
    .where('d.deployed_at', '>=', f.start).where('d.deployed_at', '<=', f.end);
  if (f.envName !== undefined) base = base.where('d.env_name', '=', f.envName);
  if (f.repoName !== undefined) base = base.where('d.repo_name', '=', f.repoName);
  const { total } = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  const rows = f.limit > 0
    ? await base.leftJoin('trails as t', 't.id', 'd.trail_id').leftJoin('flows as fl', 'fl.id', 't.flow_id')
      .select(['d.fingerprint', 'd.deployed_at', 'd.artifact_name', 'd.env_name', 'd.snapshot_index', 't.name as trail_name', 'fl.name as flow_name'])
      .orderBy('d.deployed_at', 'desc').orderBy('d.id', 'desc').limit(f.limit).offset(f.offset).execute()
    : [];
  return {
    total: Number(total),
    items: rows.map((r) => ({
      fingerprint: r.fingerprint, deployed_at: Number(r.deployed_at), artifact_name: r.artifact_name, env_name: r.env_name,
      snapshot_index: Number(r.snapshot_index), trail: r.trail_name && r.flow_name ? { flow: r.flow_name, trail: r.trail_name } : null,
    })),
  };
}
