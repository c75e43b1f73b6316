/** Environment events: stored when a report makes a snapshot (see evidence/events.ts), read a page at a time. */
import type { EnvironmentEventType } from '@trailproof/schema';
import type { Db } from '../database.ts';

export interface EnvironmentEventInsert {
  environmentId: number;
  snapshotIndex: number;
  type: EnvironmentEventType;
  artifactName: string;
  fingerprint: string;
  instancesBefore: number;
  instancesAfter: number;
  /** The trail that attested the artifact (the one a deployment links to), if any. */
  trailId: number | null;
  repoName: string | null;
  artifactCompliant: boolean | null;
  snapshotCompliant: boolean | null;
  reportedAt: number;
}

export interface EnvironmentEventRecord extends Omit<EnvironmentEventInsert, 'environmentId' | 'trailId' | 'repoName'> {
  /** The attesting trail and its flow, when there is one. */
  trail: { name: string; flowName: string } | null;
}

/** Which events: snapshots from `first` to `last` (indexes and times, both ends included), repositories, order and page. */
export interface EnvironmentEventFilter {
  firstIndex?: number;
  lastIndex?: number;
  firstTime?: number;
  lastTime?: number;
  /** Only events whose attesting trail came from one of these repositories. */
  repoNames?: readonly string[];
  /** Oldest first instead of newest first. */
  oldestFirst: boolean;
  offset: number;
  limit: number;
}

const asFlag = (value: boolean | null) => (value === null ? null : value ? 1 : 0);
const fromFlag = (value: number | null) => (value === null ? null : Number(value) === 1);

/** Stores the events of one report, in the order given. */
export async function insertEnvironmentEvents(db: Db, events: readonly EnvironmentEventInsert[]): Promise<void> {
  if (!events.length) return;
  await db
    .insertInto('environment_events')
    .values(
      events.map((e) => ({
        environment_id: e.environmentId,
        snapshot_index: e.snapshotIndex,
        type: e.type,
        artifact_name: e.artifactName,
        fingerprint: e.fingerprint,
        instances_before: e.instancesBefore,
        instances_after: e.instancesAfter,
        trail_id: e.trailId,
        repo_name: e.repoName,
        artifact_compliant: asFlag(e.artifactCompliant),
        snapshot_compliant: asFlag(e.snapshotCompliant),
        reported_at: e.reportedAt,
      })),
    )
    .execute();
}

/** A page of an environment's events (newest first unless `oldestFirst`) and how many the filter selects. */
export async function listEnvironmentEvents(
  db: Db,
  environmentId: number,
  f: EnvironmentEventFilter,
): Promise<{ total: number; items: EnvironmentEventRecord[] }> {
  let selected = db.selectFrom('environment_events as e').where('e.environment_id', '=', environmentId);
  if (f.firstIndex !== undefined) selected = selected.where('e.snapshot_index', '>=', f.firstIndex);
  if (f.lastIndex !== undefined) selected = selected.where('e.snapshot_index', '<=', f.lastIndex);
  if (f.firstTime !== undefined) selected = selected.where('e.reported_at', '>=', f.firstTime);
  if (f.lastTime !== undefined) selected = selected.where('e.reported_at', '<=', f.lastTime);
  if (f.repoNames?.length) selected = selected.where('e.repo_name', 'in', [...f.repoNames]);
  const { total } = await selected.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  const direction = f.oldestFirst ? 'asc' : 'desc';
  const rows = await selected
    .leftJoin('trails as t', 't.id', 'e.trail_id')
    .leftJoin('flows as fl', 'fl.id', 't.flow_id')
    .select([
      'e.snapshot_index',
      'e.type',
      'e.artifact_name',
      'e.fingerprint',
      'e.instances_before',
      'e.instances_after',
      'e.artifact_compliant',
      'e.snapshot_compliant',
      'e.reported_at',
      't.name as trail_name',
      'fl.name as flow_name',
    ])
    .orderBy('e.snapshot_index', direction)
    .orderBy('e.id', direction)
    .limit(f.limit)
    .offset(f.offset)
    .execute();
  return {
    total: Number(total),
    items: rows.map((r) => ({
      snapshotIndex: Number(r.snapshot_index),
      type: r.type as EnvironmentEventType,
      artifactName: r.artifact_name,
      fingerprint: r.fingerprint,
      instancesBefore: Number(r.instances_before),
      instancesAfter: Number(r.instances_after),
      artifactCompliant: fromFlag(r.artifact_compliant),
      snapshotCompliant: fromFlag(r.snapshot_compliant),
      reportedAt: Number(r.reported_at),
      trail: r.trail_name && r.flow_name ? { name: r.trail_name, flowName: r.flow_name } : null,
    })),
  };
}

export const reads = { listEnvironmentEvents };
export const writes = { insertEnvironmentEvents };
