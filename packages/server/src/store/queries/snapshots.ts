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
): Promise<void> {
  return inTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('snapshots')
      .values({ environment_id: environmentId, snapshot_index: index, artifacts: JSON.stringify(artifacts), created_by_token: createdBy, created_at: at })
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

export const reads = { getSnapshot };
export const writes = { insertSnapshot };
