/**
 * Reads for the console's pages that the API has no query for: each page is a bounded number
 * of these (a page of flows with their latest trail ids, of environments with what runs now,
 * the JUnit totals of a page of trails, where a trail's artifacts were deployed).
 */
import { PostgresAdapter, sql } from 'kysely';
import { inListChunks, type Db } from './database.ts';
import { fromJson } from './json.ts';
import type { RunningArtifact } from './snapshots.ts';

/** A flow and the id of its latest trail (null before its first). */
export interface FlowWithLatestTrail {
  name: string;
  description: string;
  latestTrailId: number | null;
}

/** A page of an organisation's flows by name, each with its newest trail's id (one index probe per flow). */
export async function flowsWithLatestTrail(db: Db, organizationId: number, offset: number, limit: number): Promise<{ items: FlowWithLatestTrail[]; total: number }> {
  const { total } = await db.selectFrom('flows').select((eb) => eb.fn.countAll<number>().as('total')).where('organization_id', '=', organizationId).executeTakeFirstOrThrow();
  const rows = await db.selectFrom('flows as f').select(['f.name', 'f.description'])
    .select((eb) => eb.selectFrom('trails as t').select('t.id').whereRef('t.flow_id', '=', 'f.id').orderBy('t.created_at', 'desc').orderBy('t.id', 'desc').limit(1).as('latest_trail_id'))
    .where('f.organization_id', '=', organizationId).orderBy('f.name').limit(limit).offset(offset).execute();
  return { total: Number(total), items: rows.map((r) => ({ name: r.name, description: r.description, latestTrailId: r.latest_trail_id === null ? null : Number(r.latest_trail_id) })) };
}

/** An environment with what runs in it now (its latest snapshot; none before its first report). */
export interface EnvironmentNow {
  name: string;
  type: string;
  /** null before the first report. */
  state: boolean | null;
  lastReportedAt: number | null;
  lastChangedAt: number | null;
  snapshotIndex: number | null;
  artifacts: RunningArtifact[];
}

/** A page of an organisation's environments by name, each with its latest snapshot. */
export async function environmentsNow(db: Db, organizationId: number, offset: number, limit: number): Promise<{ items: EnvironmentNow[]; total: number }> {
  const { total } = await db.selectFrom('environments').select((eb) => eb.fn.countAll<number>().as('total')).where('organization_id', '=', organizationId).executeTakeFirstOrThrow();
  const rows = await db.selectFrom('environments as e')
    .leftJoin('snapshots as s', (join) => join.onRef('s.environment_id', '=', 'e.id')
      .on('s.snapshot_index', '=', (eb) => eb.selectFrom('snapshots as l').select((x) => x.fn.max('l.snapshot_index').as('m')).whereRef('l.environment_id', '=', 'e.id')))
    .select(['e.name', 'e.type', 'e.state', 'e.last_reported_at', 'e.last_changed_at', 's.snapshot_index', 's.artifacts'])
    .where('e.organization_id', '=', organizationId).orderBy('e.name').limit(limit).offset(offset).execute();
  return {
    total: Number(total),
    items: rows.map((r) => ({
      name: r.name, type: r.type, state: r.state === null ? null : Number(r.state) === 1,
      lastReportedAt: r.last_reported_at === null ? null : Number(r.last_reported_at), lastChangedAt: r.last_changed_at === null ? null : Number(r.last_changed_at),
      snapshotIndex: r.snapshot_index === null ? null : Number(r.snapshot_index), artifacts: fromJson<RunningArtifact[]>(r.artifacts, []),
    })),
  };
}

/** One suite of a JUnit attestation's `junit_results`. */
export interface JunitSuiteTotals {
  name: string;
  total: number;
  failures: number;
  errors: number;
  skipped: number;
  duration: number;
}

/** The `junit_results` of these attestations, by id: only that part of their data leaves the database. */
export async function junitResultsOf(db: Db, attestationIds: readonly number[]): Promise<Map<number, JunitSuiteTotals[]>> {
  const out = new Map<number, JunitSuiteTotals[]>();
  const results = db.getExecutor().adapter instanceof PostgresAdapter
    ? sql<string | null>`(data::json -> 'junit_results')::text`
    : sql<string | null>`data -> '$.junit_results'`;
  for (const chunk of inListChunks(attestationIds)) {
    const rows = await db.selectFrom('attestations').select('id').select(results.as('results')).where('id', 'in', chunk).where('type', '=', 'junit').execute();
    for (const r of rows) {
      const parsed = fromJson<unknown>(r.results, []);
      out.set(Number(r.id), Array.isArray(parsed) ? (parsed as JunitSuiteTotals[]) : []);
    }
  }
  return out;
}

/** A deployment of an artifact, as the trail page lists them. */
export interface ArtifactDeployment {
  fingerprint: string;
  artifactName: string;
  envName: string;
  snapshotIndex: number;
  deployedAt: number;
}

/** The latest deployments (at most `limit`) of any of `fingerprints` in the organisation, newest first. */
export async function deploymentsOfFingerprints(db: Db, organizationId: number, fingerprints: readonly string[], limit: number): Promise<ArtifactDeployment[]> {
  if (!fingerprints.length) return [];
  const rows = await db.selectFrom('deployments').select(['fingerprint', 'artifact_name', 'env_name', 'snapshot_index', 'deployed_at', 'id'])
    .where('organization_id', '=', organizationId).where('fingerprint', 'in', fingerprints.slice(0, 500))
    .orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({ fingerprint: r.fingerprint, artifactName: r.artifact_name, envName: r.env_name, snapshotIndex: Number(r.snapshot_index), deployedAt: Number(r.deployed_at) }));
}
