/** The immutable snapshots of an environment: what ran in it at each report that changed it. */
import { appendEvidence, byToken } from './chain.ts';
import { compiledOnce } from '../compiled-once.ts';
import type { Db } from '../database.ts';
import { fromJson } from '../json.ts';
import { inTransaction } from '../transactions.ts';
import { tokenRef, type TokenRef } from './provenance.ts';

/** One artifact running in a snapshot: a name and fingerprint with its instances. */
export interface RunningArtifact {
  name: string;
  fingerprint: string;
  instance_count: number;
  /** The earliest start among its instances, Unix epoch seconds. */
  creation_timestamp: number;
  /** What identifies each instance (pod, namespace and owner references, task ARN, app name...). */
  instances: Array<Record<string, unknown>>;
}

export interface SnapshotRecord {
  index: number;
  artifacts: RunningArtifact[];
  createdAt: number;
  /** The token that reported it; null for snapshots kept before migration 0015. */
  createdBy: TokenRef | null;
}

/**
 * One snapshot by index; negative indexes count back from the latest (-1 is the latest). Each
 * row is an environment's state at one report and never changes afterwards.
 */
// Read by the snapshot API and the environment page: compiled once per form (by index, or counted back from the latest).
const snapshotAt = compiledOnce((db, v: { environmentId: number; index: number; back: number }, counted: boolean) => {
  const query = db
    .selectFrom('snapshots')
    .leftJoin('tokens', 'tokens.id', 'snapshots.created_by_token')
    .select([
      'snapshots.snapshot_index',
      'snapshots.artifacts',
      'snapshots.created_at',
      'snapshots.created_by_token',
      'tokens.description as token_description',
    ])
    .where('snapshots.environment_id', '=', v.environmentId);
  return counted ? query.orderBy('snapshots.snapshot_index', 'desc').offset(v.back).limit(1) : query.where('snapshots.snapshot_index', '=', v.index);
});

export async function getSnapshot(db: Db, environmentId: number, index: number): Promise<SnapshotRecord | undefined> {
  const [row] = await snapshotAt(db, { environmentId, index, back: -index - 1 }, index <= 0);
  return row
    ? {
        index: Number(row.snapshot_index),
        artifacts: fromJson(row.artifacts, []),
        createdAt: Number(row.created_at),
        createdBy: tokenRef(row.created_by_token, row.token_description),
      }
    : undefined;
}

/** Stores a snapshot and its chain record; `createdBy`: the id of the reporting token, named in the record. */
export function insertSnapshot(
  db: Db,
  environmentId: number,
  index: number,
  artifacts: RunningArtifact[],
  at: number,
  createdBy: string | null,
  /** Its compliance when made (domain/snapshot-judgement.ts), shown by the lists. */
  compliant?: boolean,
): Promise<void> {
  return inTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('snapshots')
      .values({
        environment_id: environmentId,
        snapshot_index: index,
        artifacts: JSON.stringify(artifacts),
        created_by_token: createdBy,
        created_at: at,
        compliant: compliant === undefined ? null : compliant ? 1 : 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const env = await trx.selectFrom('environments').select(['organization_id', 'name']).where('id', '=', environmentId).executeTakeFirstOrThrow();
    await appendEvidence(trx, {
      organizationId: Number(env.organization_id),
      type: 'snapshot',
      at,
      ref: { table: 'snapshots', id: Number(row.id) },
      data: { environment: env.name, snapshot_index: index, ...byToken(createdBy) },
    });
  });
}

/** The index of the snapshot current at `at` (the last made at or before it); undefined when the first came later. */
export async function snapshotIndexAt(db: Db, environmentId: number, at: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('snapshots')
    .select('snapshot_index')
    .where('environment_id', '=', environmentId)
    .where('created_at', '<=', at)
    .orderBy('snapshot_index', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.snapshot_index) : undefined;
}

/** Which snapshots a list reads: indexes and times from `first` to `last`, both included. */
export interface SnapshotRange {
  firstIndex?: number;
  lastIndex?: number;
  firstTime?: number;
  lastTime?: number;
  oldestFirst: boolean;
  offset: number;
  limit: number;
}

/** One snapshot of a list: when it was made, when the next one replaced it, and its state then. */
export interface SnapshotSummary {
  index: number;
  from: number;
  /** When the next snapshot was made; null for the latest. */
  to: number | null;
  /**
   * Its compliance when made (migration 0027 on), else the environment's state at its report as
   * its events recorded it; null when they did not (events of snapshots kept before migration
   * 0012). A snapshot without either ran nothing: true.
   */
  compliant: boolean | null;
}

const inRange = (db: Db, environmentId: number, r: SnapshotRange) => {
  let q = db.selectFrom('snapshots as s').where('s.environment_id', '=', environmentId);
  if (r.firstIndex !== undefined) q = q.where('s.snapshot_index', '>=', r.firstIndex);
  if (r.lastIndex !== undefined) q = q.where('s.snapshot_index', '<=', r.lastIndex);
  if (r.firstTime !== undefined) q = q.where('s.created_at', '>=', r.firstTime);
  if (r.lastTime !== undefined) q = q.where('s.created_at', '<=', r.lastTime);
  return q;
};

/**
 * A page of an environment's snapshots (newest first unless `oldestFirst`) without their
 * artifacts, and how many the range holds: three statements whatever the page's size (the page,
 * the next snapshots' times, the states recorded with their events).
 */
export async function listSnapshotSummaries(db: Db, environmentId: number, r: SnapshotRange): Promise<{ total: number; items: SnapshotSummary[] }> {
  const direction = r.oldestFirst ? 'asc' : 'desc';
  const [counted, rows] = await Promise.all([
    inRange(db, environmentId, r)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
    inRange(db, environmentId, r)
      .select(['s.snapshot_index', 's.created_at', 's.compliant'])
      .orderBy('s.snapshot_index', direction)
      .limit(r.limit)
      .offset(r.offset)
      .execute(),
  ]);
  const indexes = rows.map((row) => Number(row.snapshot_index));
  if (!indexes.length) return { total: Number(counted.total), items: [] };
  const [next, states] = await Promise.all([
    db
      .selectFrom('snapshots')
      .select(['snapshot_index', 'created_at'])
      .where('environment_id', '=', environmentId)
      .where(
        'snapshot_index',
        'in',
        indexes.map((i) => i + 1),
      )
      .execute(),
    db
      .selectFrom('environment_events')
      .select(['snapshot_index', (eb) => eb.fn.min('snapshot_compliant').as('compliant')])
      .where('environment_id', '=', environmentId)
      .where('snapshot_index', 'in', indexes)
      .groupBy('snapshot_index')
      .execute(),
  ]);
  const nextAt = new Map(next.map((row) => [Number(row.snapshot_index) - 1, Number(row.created_at)]));
  const stateOf = new Map(states.map((row) => [Number(row.snapshot_index), row.compliant === null ? null : Number(row.compliant) === 1]));
  return {
    total: Number(counted.total),
    items: rows.map((row) => {
      const index = Number(row.snapshot_index);
      const recorded = row.compliant === null ? undefined : Number(row.compliant) === 1;
      const compliant = recorded ?? (stateOf.has(index) ? stateOf.get(index)! : true);
      return { index, from: Number(row.created_at), to: nextAt.get(index) ?? null, compliant };
    }),
  };
}

export const reads = { getSnapshot, snapshotIndexAt, listSnapshotSummaries };
export const writes = { insertSnapshot };
