/**
 * Environments as read one at a time, their immutable snapshots, and the row lock that keeps
 * numbering gap-free across processes.
 */
import { appendEvidence, byToken, inTransaction } from './chain.ts';
import type { Db, DialectName } from '../database.ts';
import { environmentFromRow, type EnvironmentRecord } from './environments.ts';
import { fromJson } from '../json.ts';
import { tokenRef, type TokenRef } from './provenance.ts';

/** One artifact running in a snapshot: a name and fingerprint with its instances. */
export interface RunningArtifact {
  name: string;
  fingerprint: string;
  instance_count: number;
  /** The earliest start among its instances, Unix epoch seconds. */
  creation_timestamp: number;
  /** What identifies each instance (pod and namespace, task ARN, app name...). */
  instances: Array<Record<string, string>>;
}

export interface SnapshotRecord {
  index: number;
  artifacts: RunningArtifact[];
  createdAt: number;
  /** The token that reported it; null for snapshots kept before migration 0015. */
  createdBy: TokenRef | null;
}

export interface EnvironmentRow extends EnvironmentRecord {
  id: number;
  space_id: string | null;
}

/**
 * Locks a row until the transaction ends, so that concurrent writers that number things under
 * it (snapshots of an environment, approvals of a flow) take turns. PostgreSQL needs it: two
 * transactions could otherwise read the same max() and one would fail on the unique constraint.
 * SQLite needs nothing: Kysely's SQLite driver runs one transaction at a time on its single
 * connection, and SQLite itself admits one writer per file.
 */
export async function lockForUpdate(db: Db, dialect: DialectName, table: 'environments' | 'flows' | 'approvals', id: number): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom(table).select('id').where('id', '=', id).forUpdate().execute();
}

export async function findEnvironment(db: Db, organizationId: number, orgName: string, name: string): Promise<EnvironmentRow | undefined> {
  const r = await db.selectFrom('environments').selectAll().where('organization_id', '=', organizationId).where('name', '=', name).executeTakeFirst();
  if (!r) return undefined;
  return { id: Number(r.id), ...environmentFromRow(r, orgName), space_id: r.space_id };
}

/** The environments of an organisation with these names (to check included environments). */
export async function typesOfEnvironments(db: Db, organizationId: number, names: readonly string[]): Promise<Map<string, string>> {
  if (!names.length) return new Map();
  const rows = await db.selectFrom('environments').select(['name', 'type']).where('organization_id', '=', organizationId).where('name', 'in', [...names]).execute();
  return new Map(rows.map((r) => [r.name, r.type]));
}

/**
 * One snapshot by index; negative indexes count back from the latest (-1 is the latest). Each
 * row is an environment's state at one report and never changes afterwards.
 */
export async function getSnapshot(db: Db, environmentId: number, index: number): Promise<SnapshotRecord | undefined> {
  let query = db.selectFrom('snapshots').leftJoin('tokens', 'tokens.id', 'snapshots.created_by_token')
    .select(['snapshots.snapshot_index', 'snapshots.artifacts', 'snapshots.created_at', 'snapshots.created_by_token', 'tokens.description as token_description'])
    .where('snapshots.environment_id', '=', environmentId);
  query = index > 0 ? query.where('snapshots.snapshot_index', '=', index) : query.orderBy('snapshots.snapshot_index', 'desc').offset(-index - 1).limit(1);
  const row = await query.executeTakeFirst();
  return row ? {
    index: Number(row.snapshot_index), artifacts: fromJson(row.artifacts, []), createdAt: Number(row.created_at),
    createdBy: tokenRef(row.created_by_token, row.token_description),
  } : undefined;
}

/** Stores a snapshot and its chain record; `createdBy`: the id of the reporting token, named in the record. */
export function insertSnapshot(db: Db, environmentId: number, index: number, artifacts: RunningArtifact[], at: number, createdBy: string | null): Promise<void> {
  return inTransaction(db, async (trx) => {
    const row = await trx.insertInto('snapshots')
      .values({ environment_id: environmentId, snapshot_index: index, artifacts: JSON.stringify(artifacts), created_by_token: createdBy, created_at: at })
      .returning('id').executeTakeFirstOrThrow();
    const env = await trx.selectFrom('environments').select(['organization_id', 'name']).where('id', '=', environmentId).executeTakeFirstOrThrow();
    await appendEvidence(trx, {
      organizationId: Number(env.organization_id), type: 'snapshot', at, ref: { table: 'snapshots', id: Number(row.id) },
      data: { environment: env.name, snapshot_index: index, ...byToken(createdBy) },
    });
  });
}

/** Records a report on the environment: when it came, whether it changed what runs, and the compliance state. */
export async function recordReport(db: Db, environmentId: number, report: { at: number; changed: boolean; state: boolean }): Promise<void> {
  await db.updateTable('environments').set({
    last_reported_at: report.at,
    state: report.state ? 1 : 0,
    // A new snapshot changes what the environment is; an identical report only says it was seen.
    ...(report.changed ? { last_changed_at: report.at, last_modified_at: report.at } : {}),
  }).where('id', '=', environmentId).execute();
}
