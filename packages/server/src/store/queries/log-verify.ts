/**
 * Verifying an organisation's transparency log against its chain (`trailproof verify`): every
 * leaf hash against its record, every stored subtree against the leaves, the stored frontier,
 * and every kept checkpoint's signature, size and root against the tree recomputed from the
 * records. In one read transaction, so that appends committed meanwhile are seen whole or not at all.
 */
import { isPostgres, type Db } from '../database.ts';
import { checkpointsFrom, type CheckpointRecord } from './log-checkpoints.ts';
import { logTree } from './log.ts';
import {
  CompactRange,
  leafHash,
  openCheckpoint,
  parseSignerKey,
  parseVerifierKey,
  VerificationError,
  type NoteVerifier,
  type Subtree,
  subtreesOf,
} from '../../transparency/index.ts';

export interface LogVerifyResult {
  ok: boolean;
  /** Leaves checked (all of them when ok; those before the problem otherwise). */
  leaves: number;
  /** Checkpoints checked. */
  checkpoints: number;
  /** What is wrong first, for people; null when ok. */
  problem: string | null;
}

export interface LogVerifyOptions {
  /** The verifier key checkpoints must be signed by (an auditor's pinned key); the stored key's by default. */
  verifierKey?: string;
}

const pageSize = 1000;

/** Verifies the organisation's log (see above). */
export function verifyLog(db: Db, organizationId: number, orgName: string, options: LogVerifyOptions = {}): Promise<LogVerifyResult> {
  if (db.isTransaction) return verifyIn(db, organizationId, orgName, options);
  const snapshot = isPostgres(db) ? db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only') : db.transaction();
  return snapshot.execute((trx) => verifyIn(trx, organizationId, orgName, options));
}

async function verifyIn(db: Db, organizationId: number, orgName: string, options: LogVerifyOptions): Promise<LogVerifyResult> {
  const range = new CompactRange();
  let checked = 0;
  const broken = (problem: string): LogVerifyResult => ({ ok: false, leaves: range.size, checkpoints: checked, problem });
  const signing = await db.selectFrom('log_signing').select('signer_key').where('id', '=', 1).executeTakeFirst();
  let verifier: NoteVerifier | undefined;
  try {
    if (options.verifierKey !== undefined) verifier = parseVerifierKey(options.verifierKey);
    else if (signing?.signer_key) verifier = parseSignerKey(signing.signer_key);
  } catch (error) {
    if (error instanceof VerificationError) return broken(`the verifier key is malformed: ${error.message}`);
    throw error;
  }
  const checkpoints = checkpointCursor(db, organizationId);
  let next = await checkpoints.next();
  const checkCheckpoint = (c: CheckpointRecord): string | null => {
    if (!verifier) return `checkpoint ${c.treeSize} cannot be checked: no verifier key (give one)`;
    try {
      const { checkpoint } = openCheckpoint(c.note, verifier);
      if (!checkpoint.origin.endsWith(`/${orgName}`)) return `checkpoint ${c.treeSize} is of another log (${checkpoint.origin})`;
      if (checkpoint.size !== c.treeSize || !Buffer.from(checkpoint.rootHash).equals(c.rootHash))
        return `checkpoint ${c.treeSize}: its note says another size or root than its row`;
    } catch (error) {
      if (error instanceof VerificationError) return `checkpoint ${c.treeSize}: ${error.message}`;
      throw error;
    }
    if (!range.root().equals(c.rootHash))
      return `checkpoint ${c.treeSize} does not match the tree of the chain's first ${c.treeSize} records: the history it signed was rewritten`;
    return null;
  };
  for (let after = 0; ; ) {
    const rows = await db
      .selectFrom('evidence_log')
      .select(['seq', 'record'])
      .where('organization_id', '=', organizationId)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    // The subtrees this page of leaves completes are numbered on from those of the leaves before it.
    const firstPosition = subtreesOf(range.size);
    const completed: Subtree[] = [];
    for (const row of rows) {
      if (Number(row.seq) !== range.size + 1) return broken(`chain record ${range.size + 1} is missing, so leaf ${range.size} has no record`);
      completed.push(...range.append(leafHash(Buffer.from(row.record, 'utf8'))));
      while (next && next.treeSize === range.size) {
        const problem = checkCheckpoint(next);
        if (problem) return broken(problem);
        checked++;
        next = await checkpoints.next();
      }
    }
    const mismatch = await firstStoredMismatch(db, organizationId, completed, firstPosition);
    if (mismatch) {
      const { level, index } = mismatch;
      return {
        ...broken(
          level === 0
            ? `leaf ${index} (record ${index + 1}) does not match its stored leaf hash`
            : `stored subtree ${level}/${index} (leaves ${index * 2 ** level} to ${(index + 1) * 2 ** level - 1}) does not match its leaves`,
        ),
        leaves: Math.min(range.size, index * 2 ** level),
      };
    }
    if (rows.length < pageSize) break;
    after = Number(rows[rows.length - 1]!.seq);
  }
  if (next) return broken(`checkpoint ${next.treeSize} is of more leaves than the chain has records (${range.size}): records were removed`);
  const stored = await logTree(db, organizationId);
  if (stored.size !== range.size) return broken(`the log's size is ${stored.size}, the chain has ${range.size} records`);
  if (!stored.frontier.root().equals(range.root())) return broken("the log's stored frontier does not match its leaves");
  const counted = await db
    .selectFrom('log_subtrees')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  const expected = subtreesOf(range.size);
  if (Number(counted.n) !== expected) return broken(`the log stores ${counted.n} subtrees where ${range.size} leaves make ${expected}: rows were added`);
  return { ok: true, leaves: range.size, checkpoints: checked, problem: null };
}

/**
 * The first of `expected` (subtrees in the order they complete, numbered from `firstPosition`)
 * whose stored hash differs or is missing: one range query, as they are stored side by side.
 */
async function firstStoredMismatch(db: Db, organizationId: number, expected: readonly Subtree[], firstPosition: number): Promise<Subtree | undefined> {
  if (!expected.length) return undefined;
  const rows = await db
    .selectFrom('log_subtrees')
    .select(['position', 'hash'])
    .where('organization_id', '=', organizationId)
    .where('position', '>=', firstPosition)
    .where('position', '<', firstPosition + expected.length)
    .execute();
  const stored = new Map(rows.map((r) => [Number(r.position), Buffer.from(r.hash)]));
  return expected.find((s, i) => !stored.get(firstPosition + i)?.equals(s.hash));
}

/** The organisation's checkpoints in size order, a page at a time. */
function checkpointCursor(db: Db, organizationId: number) {
  let page: CheckpointRecord[] = [];
  let after = 0;
  let done = false;
  return {
    async next(): Promise<CheckpointRecord | undefined> {
      if (!page.length && !done) {
        page = await checkpointsFrom(db, organizationId, after, pageSize);
        if (page.length < pageSize) done = true;
        if (page.length) after = page[page.length - 1]!.treeSize;
      }
      return page.shift();
    },
  };
}

export const reads = { verifyLog };
export const writes = {};
