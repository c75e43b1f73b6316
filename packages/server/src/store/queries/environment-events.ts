/** Environment events: stored when a report makes a snapshot (see evidence/events.ts), read a page at a time. */
import type { EnvironmentEventType } from '@trailproof/schema';
import { compiledOnce } from '../compiled-once.ts';
import { insertChunks, type Db } from '../database.ts';
import { eachChunkInTurn } from '../../support/turns.ts';
import { inTransaction } from '../transactions.ts';

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
  /** The matched trail and its flow, when there is one, with the git commit of its artifact (else its own). */
  trail: { name: string; flowName: string; gitCommit: string | null } | null;
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

/** Stores the events of one report, in the order given, in one transaction. */
export function insertEnvironmentEvents(db: Db, events: readonly EnvironmentEventInsert[]): Promise<void> {
  if (!events.length) return Promise.resolve();
  return inTransaction(db, async (trx) => {
    // A turn of the event loop between statements (see insertDeployments).
    await eachChunkInTurn(insertChunks(events), (chunk) => insertEventRows(trx, chunk));
  });
}

const insertEventRows = (db: Db, events: readonly EnvironmentEventInsert[]) =>
  db
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

interface EventValues extends Omit<EnvironmentEventFilter, 'oldestFirst' | 'repoNames'> {
  environmentId: number;
  repoNames?: string[];
}

/** The events `v` selects; a filter takes part when its value is present. */
function selectedEvents(db: Db, v: EventValues) {
  let selected = db.selectFrom('environment_events as e').where('e.environment_id', '=', v.environmentId);
  if (v.firstIndex !== undefined) selected = selected.where('e.snapshot_index', '>=', v.firstIndex);
  if (v.lastIndex !== undefined) selected = selected.where('e.snapshot_index', '<=', v.lastIndex);
  if (v.firstTime !== undefined) selected = selected.where('e.reported_at', '>=', v.firstTime);
  if (v.lastTime !== undefined) selected = selected.where('e.reported_at', '<=', v.lastTime);
  if (v.repoNames?.length) selected = selected.where('e.repo_name', 'in', v.repoNames);
  return selected;
}

// Read by the environment page and GET .../events at each request: compiled once per shape.
const countEvents = compiledOnce((db, v: EventValues) => selectedEvents(db, v).select((eb) => eb.fn.countAll<number>().as('total')));
const pageOfEvents = compiledOnce((db, v: EventValues, direction: 'asc' | 'desc') =>
  selectedEvents(db, v)
    .leftJoin('trails as t', 't.id', 'e.trail_id')
    .leftJoin('flows as fl', 'fl.id', 't.flow_id')
    // One artifact at most: a trail reports a fingerprint once (artifacts_trail_fingerprint).
    .leftJoin('artifacts as r', (join) => join.onRef('r.trail_id', '=', 'e.trail_id').onRef('r.fingerprint', '=', 'e.fingerprint'))
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
      'r.git_commit as artifact_commit',
      't.commit_sha as trail_commit',
    ])
    .orderBy('e.snapshot_index', direction)
    .orderBy('e.id', direction)
    .limit(v.limit)
    .offset(v.offset),
);

/** A page of an environment's events (newest first unless `oldestFirst`) and how many the filter selects. */
export async function listEnvironmentEvents(
  db: Db,
  environmentId: number,
  f: EnvironmentEventFilter,
): Promise<{ total: number; items: EnvironmentEventRecord[] }> {
  const { oldestFirst, repoNames, ...rest } = f;
  const v: EventValues = { ...rest, environmentId, ...(repoNames?.length ? { repoNames: [...repoNames] } : {}) };
  const [[counted], rows] = await Promise.all([countEvents(db, v), pageOfEvents(db, v, oldestFirst ? 'asc' : 'desc')]);
  const total = counted?.total ?? 0;
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
      trail: r.trail_name && r.flow_name ? { name: r.trail_name, flowName: r.flow_name, gitCommit: r.artifact_commit ?? r.trail_commit } : null,
    })),
  };
}

export const reads = { listEnvironmentEvents };
export const writes = { insertEnvironmentEvents };
