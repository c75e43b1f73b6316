/**
 * Signed checkpoints of the organisations' trees: made after the write batches that grew a tree,
 * at most one per organisation per interval, and kept (they are evidence too: an auditor who
 * holds one can later ask for the proof that the log still extends it).
 */
import { insertChunks, type Db } from '../database.ts';
import { compiledOnce } from '../compiled-once.ts';
import { logTree } from './log.ts';
import { originOf, type LogSigning } from '../log-signing.ts';
import { signCheckpoint } from '../../transparency/index.ts';

/** A kept checkpoint: the signed note's text and what it says. */
export interface CheckpointRecord {
  treeSize: number;
  rootHash: Buffer;
  /** The C2SP signed note (checkpoint text, blank line, signature line). */
  note: string;
  createdAt: number;
}

/**
 * Signs and keeps a checkpoint of each organisation's tree that grew since its latest checkpoint,
 * unless that one is younger than `intervalMs`. Returns whether such a tree was left for later.
 * `reader`: where the trees are read (a read connection, so that on SQLite the writer is held only
 * for the insert); `db` by default.
 */
export async function makeCheckpoints(db: Db, signing: LogSigning, options: { intervalMs: number; now?: number; reader?: Db }): Promise<{ deferred: boolean }> {
  const now = options.now ?? Date.now() / 1000;
  const reader = options.reader ?? db;
  let deferred = false;
  const made: CheckpointRow[] = [];
  for (const org of await grownTrees(reader, {})) {
    const age = org.latest_at === null ? Infinity : now - Number(org.latest_at);
    // A latest checkpoint dated in the future (the clock set back) does not hold the next one back.
    if (age >= 0 && age * 1000 < options.intervalMs) {
      deferred = true;
      continue;
    }
    // Size and right edge are one row: the root is of exactly that size, whatever was appended since.
    const tree = await logTree(reader, Number(org.id));
    const rootHash = tree.frontier.root();
    const note = signCheckpoint({ origin: originOf(signing, org.name), size: tree.size, rootHash }, signing.signer);
    made.push({ organization_id: Number(org.id), tree_size: tree.size, root_hash: rootHash, note, created_at: now });
  }
  // A checkpoint states a fact of the append-only tree: kept once, whoever (another process) signed that size first.
  // Each row is a fact of its own: slices may commit apart (a rolled-back one is signed again next time).
  for (const rows of insertChunks(made)) await insertCheckpoints(db, { rows });
  return { deferred };
}

type CheckpointRow = { organization_id: number; tree_size: number; root_hash: Uint8Array; note: string; created_at: number };

/** The trees larger than their latest checkpoint, with that checkpoint's time (null: none yet). */
const grownTrees = compiledOnce((db, _: Record<string, never>) =>
  db
    .selectFrom('log_trees')
    .innerJoin('organizations', 'organizations.id', 'log_trees.organization_id')
    .select(['log_trees.organization_id as id', 'organizations.name as name'])
    // The latest checkpoint is the one of the largest size (trees only grow): one row found by the
    // primary key, where max(created_at) would read every checkpoint the organisation has kept.
    .select((eb) =>
      eb
        .selectFrom('log_checkpoints')
        .whereRef('log_checkpoints.organization_id', '=', 'log_trees.organization_id')
        .orderBy('tree_size', 'desc')
        .limit(1)
        .select('created_at')
        .as('latest_at'),
    )
    .where((eb) =>
      eb(
        'log_trees.size',
        '>',
        eb.fn.coalesce(
          eb
            .selectFrom('log_checkpoints')
            .whereRef('log_checkpoints.organization_id', '=', 'log_trees.organization_id')
            .select((c) => c.fn.max('tree_size').as('size')),
          eb.lit(0),
        ),
      ),
    ),
);
const insertCheckpoints = compiledOnce((db, v: { rows: CheckpointRow[] }) =>
  db
    .insertInto('log_checkpoints')
    .values(v.rows)
    .onConflict((c) => c.columns(['organization_id', 'tree_size']).doNothing()),
);

/** The latest checkpoint of the organisation, if it has one. */
export async function latestCheckpoint(db: Db, organizationId: number): Promise<CheckpointRecord | undefined> {
  const [row] = await checkpointsPage(db, { organizationId, offset: 0, limit: 1 });
  return row && toRecord(row);
}

/** A page of the organisation's checkpoints, newest first. */
export async function listCheckpoints(db: Db, organizationId: number, offset: number, limit: number): Promise<CheckpointRecord[]> {
  return (await checkpointsPage(db, { organizationId, offset, limit })).map(toRecord);
}

/** Every checkpoint of the organisation, oldest first, a page at a time (for verification). */
export async function checkpointsFrom(db: Db, organizationId: number, afterSize: number, limit: number): Promise<CheckpointRecord[]> {
  const rows = await db
    .selectFrom('log_checkpoints')
    .select(['tree_size', 'root_hash', 'note', 'created_at'])
    .where('organization_id', '=', organizationId)
    .where('tree_size', '>', afterSize)
    .orderBy('tree_size')
    .limit(limit)
    .execute();
  return rows.map(toRecord);
}

const checkpointsPage = compiledOnce((db, v: { organizationId: number; offset: number; limit: number }) =>
  db
    .selectFrom('log_checkpoints')
    .select(['tree_size', 'root_hash', 'note', 'created_at'])
    .where('organization_id', '=', v.organizationId)
    .orderBy('tree_size', 'desc')
    .limit(v.limit)
    .offset(v.offset),
);

function toRecord(row: { tree_size: number; root_hash: Uint8Array; note: string; created_at: number }): CheckpointRecord {
  return { treeSize: Number(row.tree_size), rootHash: Buffer.from(row.root_hash), note: row.note, createdAt: Number(row.created_at) };
}

export const reads = { latestCheckpoint, listCheckpoints, checkpointsFrom };
/** `makeCheckpoints` runs from the store's checkpointer (log-store.ts), in transactions of its own. */
export const writes = {};
