/**
 * Deployments: stored with the snapshots that record them (and the per-day and per-hour counts
 * kept with them), listed a window at a time (deployment-window.ts counts a window and finds
 * where a deep page starts), and read back by artifact fingerprint.
 */
import { sql } from 'kysely';
import { compiledOnce } from '../compiled-once.ts';
import { firstOfChunks, insertChunks, type Db } from '../database.ts';
import { eachChunkInTurn, nextTurn } from '../../support/turns.ts';
import { inTransaction } from '../transactions.ts';
import { countDeployments, deepPageStart, secondsPerDay, secondsPerHour, windowRows, type WindowValues } from './deployment-window.ts';

/** A deployment of a page of `listDeployments` (http/views/deployments.ts writes the API's items of them, the console its table). */
export interface DeploymentListRow {
  fingerprint: string;
  deployed_at: number;
  artifact_name: string;
  env_name: string;
  snapshot_index: number;
  /** The trail that attested the artifact, with its flow; null when none did. */
  trail_name: string | null;
  flow_name: string | null;
  /** The git commit of the artifact the trail reported with this fingerprint, else the trail's; null when neither is known. */
  artifact_commit: string | null;
  trail_commit: string | null;
  /** Whether the artifact was compliant when it started, as its snapshot judged it (the least of its names); null where no start was recorded. */
  artifact_compliant: boolean | null;
}

export interface DeploymentFilter {
  start: number;
  end: number;
  envName?: string;
  repoName?: string;
  /**
   * Only those whose artifact was compliant when it started (true), or only the others (false:
   * judged non-compliant, or with no recorded start); every one when absent.
   */
  compliant?: boolean;
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

/** Stores a report's deployments and moves the per-day and per-hour counts, in one transaction. */
export function insertDeployments(db: Db, rows: DeploymentInsert[]): Promise<void> {
  if (!rows.length) return Promise.resolve();
  return inTransaction(db, async (trx) => {
    // A turn of the event loop between statements: 5,000 rows took hundreds of ms of this thread on SQLite.
    await eachChunkInTurn(insertChunks(rows), (chunk) => insertDeploymentRows(trx, chunk));
    await nextTurn();
    // Keep the per-day and per-hour counts in step, in the same transaction as the rows.
    const days = tally(
      rows.flatMap((d) => {
        const day = Math.floor(d.deployedAt / secondsPerDay);
        const keys: Array<[string, string]> = [
          ['', ''],
          [d.envName, ''],
        ];
        if (d.repoName !== null) keys.push(['', d.repoName], [d.envName, d.repoName]);
        return keys.map(([env_name, repo_name]) => ({ organization_id: d.organizationId, env_name, repo_name, day }));
      }),
    );
    await eachChunkInTurn(insertChunks(days), (chunk) => addDayCounts(trx, chunk));
    const hours = tally(rows.map((d) => ({ organization_id: d.organizationId, hour: Math.floor(d.deployedAt / secondsPerHour) })));
    await eachChunkInTurn(insertChunks(hours), (chunk) => addHourCounts(trx, chunk));
  });
}

const insertDeploymentRows = (db: Db, rows: DeploymentInsert[]) =>
  db
    .insertInto('deployments')
    .values(
      rows.map((d) => ({
        organization_id: d.organizationId,
        environment_id: d.environmentId,
        env_name: d.envName,
        snapshot_index: d.snapshotIndex,
        fingerprint: d.fingerprint,
        artifact_name: d.artifactName,
        deployed_at: d.deployedAt,
        trail_id: d.trailId,
        repo_name: d.repoName,
      })),
    )
    .execute();

const addDayCounts = (db: Db, days: Array<{ organization_id: number; env_name: string; repo_name: string; day: number; count: number }>) =>
  db
    .insertInto('deployment_counts')
    .values(days)
    .onConflict((c) =>
      c
        .columns(['organization_id', 'env_name', 'repo_name', 'day'])
        .doUpdateSet((eb) => ({ count: eb('deployment_counts.count', '+', eb.ref('excluded.count')) })),
    )
    .execute();

const addHourCounts = (db: Db, hours: Array<{ organization_id: number; hour: number; count: number }>) =>
  db
    .insertInto('deployment_hour_counts')
    .values(hours)
    .onConflict((c) =>
      c.columns(['organization_id', 'hour']).doUpdateSet((eb) => ({ count: eb('deployment_hour_counts.count', '+', eb.ref('excluded.count')) })),
    )
    .execute();

/** The distinct keys, each with how many times it was given. */
function tally<K extends Record<string, string | number>>(keys: K[]): Array<K & { count: number }> {
  const counted = new Map<string, K & { count: number }>();
  for (const key of keys) {
    const id = JSON.stringify(Object.values(key));
    const entry = counted.get(id) ?? { ...key, count: 0 };
    entry.count++;
    counted.set(id, entry);
  }
  return [...counted.values()];
}

/**
 * Whether the deployment's artifact was compliant when it started (1 or 0), as judged then and
 * stored with its snapshot (environment_events), never judged again on view; null with no start.
 */
const compliantWhenStarted = sql<
  number | null
>`(select min(e.artifact_compliant) from environment_events e where e.fingerprint = d.fingerprint and e.environment_id = d.environment_id and e.snapshot_index = d.snapshot_index and e.type = 'started')`;

/** The window's rows, only those whose artifact's compliance when it started is `compliant` when given (see `DeploymentFilter`). */
function judgedRows(db: Db, v: WindowValues, from: number, to: number, toExclusive: boolean, compliant: boolean | undefined) {
  const rows = windowRows(db, v, from, to, toExclusive);
  if (compliant === undefined) return rows;
  return rows.where(compliant ? sql<boolean>`${compliantWhenStarted} = 1` : sql<boolean>`coalesce(${compliantWhenStarted}, 0) = 0`);
}

/**
 * Deployments in [start, end] whose artifact's compliance when it started is `compliant`: counted
 * row by row, since the per-day counts do not know compliance.
 */
const countJudged = compiledOnce((db, v: WindowValues & { start: number; end: number }, o: { compliant: boolean }) =>
  judgedRows(db, v, v.start, v.end, false, o.compliant).select((eb) => eb.fn.countAll().as('n')),
);

/**
 * A page of the window, newest first. The page's ids come first, from the covering index alone
 * (ORDER BY, LIMIT and OFFSET in a subquery); only those rows are read and joined to their
 * trail and flow, so a deep page does not join the rows it skips. `endExclusive`: the window
 * ends before `end` (a deep page that starts at a day boundary, see `deepPageStart`).
 */
const pageWithin = compiledOnce(
  (db, v: WindowValues & { start: number; end: number; limit: number; offset: number }, o: { endExclusive: boolean; compliant: boolean | undefined }) =>
    db
      .selectFrom(
        judgedRows(db, v, v.start, v.end, o.endExclusive, o.compliant)
          .select('d.id')
          .orderBy('d.deployed_at', 'desc')
          .orderBy('d.id', 'desc')
          .limit(v.limit)
          .offset(v.offset)
          .as('p'),
      )
      .innerJoin('deployments as d', 'd.id', 'p.id')
      .leftJoin('trails as t', 't.id', 'd.trail_id')
      .leftJoin('flows as fl', 'fl.id', 't.flow_id')
      // One artifact at most: a trail reports a fingerprint once (artifacts_trail_fingerprint).
      .leftJoin('artifacts as r', (join) => join.onRef('r.trail_id', '=', 'd.trail_id').onRef('r.fingerprint', '=', 'd.fingerprint'))
      .select([
        'd.fingerprint',
        'd.deployed_at',
        'd.artifact_name',
        'd.env_name',
        'd.snapshot_index',
        't.name as trail_name',
        'fl.name as flow_name',
        'r.git_commit as artifact_commit',
        't.commit_sha as trail_commit',
        compliantWhenStarted.as('artifact_compliant'),
      ])
      .orderBy('d.deployed_at', 'desc')
      .orderBy('d.id', 'desc'),
);

/** A row as the driver gives it: PostgreSQL's bigints come as text. */
type StoredListRow = Omit<DeploymentListRow, 'artifact_compliant'> & { artifact_compliant: number | string | null };

const listRow = (r: StoredListRow): DeploymentListRow => ({
  fingerprint: r.fingerprint,
  deployed_at: Number(r.deployed_at),
  artifact_name: r.artifact_name,
  env_name: r.env_name,
  snapshot_index: Number(r.snapshot_index),
  trail_name: r.trail_name,
  flow_name: r.flow_name,
  artifact_commit: r.artifact_commit,
  trail_commit: r.trail_commit,
  artifact_compliant: r.artifact_compliant === null ? null : Number(r.artifact_compliant) === 1,
});

/** Deployments in the window, newest first (a page of them), and how many there are. */
export async function listDeployments(db: Db, organizationId: number, f: DeploymentFilter): Promise<{ total: number; rows: DeploymentListRow[] }> {
  const w: WindowValues = { org: organizationId, envName: f.envName, repoName: f.repoName };
  const compliant = f.compliant;
  const page = async () => {
    // A deep page skips whole days by their counts, which do not know compliance.
    const { end, endExclusive, offset } = compliant === undefined ? await deepPageStart(db, w, f) : { end: f.end, endExclusive: false, offset: f.offset };
    return pageWithin(db, { org: w.org, envName: w.envName, repoName: w.repoName, start: f.start, end, limit: f.limit, offset }, { endExclusive, compliant });
  };
  const count = async () =>
    compliant === undefined
      ? countDeployments(db, w, f.start, f.end)
      : Number((await countJudged(db, { org: w.org, envName: w.envName, repoName: w.repoName, start: f.start, end: f.end }, { compliant }))[0]?.n ?? 0);
  const [total, rows] = await Promise.all([count(), f.limit > 0 ? page() : []]);
  return { total, rows: (rows as StoredListRow[]).map(listRow) };
}

/**
 * The time of the organisation's first deployment at or after `from` (after it, when `after`),
 * whatever its environment or repository; null when none. The console's deployments page tells
 * by it until when its window ending now keeps the rows it holds (`deployments_org_time`: one seek).
 */
export async function firstDeploymentFrom(db: Db, organizationId: number, from: number, after: boolean): Promise<number | null> {
  const row = await db
    .selectFrom('deployments')
    .select('deployed_at')
    .where('organization_id', '=', organizationId)
    .where('deployed_at', after ? '>' : '>=', from)
    .orderBy('deployed_at')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? null : Number(row.deployed_at);
}

/** The name an artifact last ran under in an environment of the organisation. */
export async function deployedNameOf(db: Db, organizationId: number, fingerprint: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('deployments')
    .select('artifact_name')
    .where('organization_id', '=', organizationId)
    .where('fingerprint', '=', fingerprint)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.artifact_name;
}

/** A deployment of an artifact, as the trail page lists them. */
export interface ArtifactDeployment {
  fingerprint: string;
  artifactName: string;
  envName: string;
  snapshotIndex: number;
  deployedAt: number;
}

const latestDeploymentsOf = (db: Db, organizationId: number, fingerprints: string[], limit: number) =>
  db
    .selectFrom('deployments')
    .select(['fingerprint', 'artifact_name', 'env_name', 'snapshot_index', 'deployed_at', 'id'])
    .where('organization_id', '=', organizationId)
    .where('fingerprint', 'in', fingerprints)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

/** The latest deployments (at most `limit`) of any of `fingerprints` in the organisation, newest first. */
export async function deploymentsOfFingerprints(db: Db, organizationId: number, fingerprints: readonly string[], limit: number): Promise<ArtifactDeployment[]> {
  if (!fingerprints.length) return [];
  const rows = await firstOfChunks(
    [...new Set(fingerprints)],
    limit,
    (chunk) => latestDeploymentsOf(db, organizationId, chunk, limit),
    (a, b) => Number(b.id) - Number(a.id),
  );
  return rows.map((r) => ({
    fingerprint: r.fingerprint,
    artifactName: r.artifact_name,
    envName: r.env_name,
    snapshotIndex: Number(r.snapshot_index),
    deployedAt: Number(r.deployed_at),
  }));
}

export const reads = { listDeployments, firstDeploymentFrom, deployedNameOf, deploymentsOfFingerprints };
export const writes = { insertDeployments };
