/**
 * Verdicts of `assert artifact` (migration 0026), recorded as evidence: once per distinct verdict
 * text in an organisation, so that asserting again what was judged already (the same evidence,
 * policy versions and outcome) reads its record instead of writing another.
 */
import type { Db } from '../database.ts';
import { inTransaction } from '../transactions.ts';
import { appendEvidence, byToken, digestColumnsOf, sha256 } from './chain.ts';
import { logIndexesOf } from './log.ts';

export interface VerdictInput {
  organizationId: number;
  fingerprint: string;
  /** The verdict's canonical JSON (domain/verdict.ts): what the record says. */
  verdict: string;
  compliant: boolean;
  createdBy: string | null;
  at: number;
}

/**
 * Leaves of verdicts found, per database and organisation: a verdict's row and its record are
 * append-only, so once found its leaf never changes (a process's own memory, bounded; every
 * process finds its own).
 */
const known = new WeakMap<object, Map<string, number>>();
const knownMax = 10_000;

/** The leaf of the verdict with this text in the organisation, if it was recorded. */
export async function findVerdictLeaf(db: Db, organizationId: number, verdict: string): Promise<number | undefined> {
  const key = `${organizationId}:${sha256(verdict)}`;
  const cache = known.get(db) ?? known.set(db, new Map()).get(db)!;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const row = await db
    .selectFrom('verdicts')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('verdict_sha256', '=', key.slice(key.indexOf(':') + 1))
    .executeTakeFirst();
  if (!row) return undefined;
  const leaf = (await logIndexesOf(db, organizationId, 'verdicts', [Number(row.id)])).get(Number(row.id));
  if (leaf === undefined) return undefined;
  if (cache.size >= knownMax) cache.delete(cache.keys().next().value!);
  cache.set(key, leaf);
  return leaf;
}

/** Records the verdict with its chain record, unless its text is recorded already; answers its leaf either way. */
export function recordVerdict(db: Db, v: VerdictInput): Promise<number> {
  const digest = sha256(v.verdict);
  return inTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('verdicts')
      .values({
        organization_id: v.organizationId,
        fingerprint: v.fingerprint,
        verdict: v.verdict,
        verdict_sha256: digest,
        compliant: v.compliant ? 1 : 0,
        created_by_token: v.createdBy,
        created_at: v.at,
      })
      .onConflict((c) => c.columns(['organization_id', 'verdict_sha256']).doNothing())
      .returning(digestColumnsOf('verdicts'))
      .executeTakeFirst();
    if (!row) return (await findVerdictLeaf(trx, v.organizationId, v.verdict))!;
    const { seq } = await appendEvidence(trx, {
      organizationId: v.organizationId,
      type: 'verdict',
      at: v.at,
      ref: { table: 'verdicts', id: Number(row.id) },
      row,
      data: { fingerprint: v.fingerprint, compliant: v.compliant, verdict_sha256: digest, ...byToken(v.createdBy) },
    });
    return seq - 1;
  });
}

/** A recorded verdict as the console shows it: its row, its leaf in the log and its text. */
export interface VerdictRow {
  id: number;
  fingerprint: string;
  compliant: boolean;
  createdAt: number;
  /** The canonical JSON that was recorded (domain/verdict.ts). */
  verdict: string;
  logIndex: number | null;
}

/** A page of the organisation's verdicts, newest first (of one fingerprint when given), with how many there are. */
export async function listVerdicts(
  db: Db,
  organizationId: number,
  o: { fingerprint?: string; offset: number; limit: number },
): Promise<{ total: number; items: VerdictRow[] }> {
  let query = db.selectFrom('verdicts').where('organization_id', '=', organizationId);
  if (o.fingerprint !== undefined) query = query.where('fingerprint', '=', o.fingerprint);
  const [count, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst(),
    query.select(['id', 'fingerprint', 'compliant', 'created_at', 'verdict']).orderBy('id', 'desc').offset(o.offset).limit(o.limit).execute(),
  ]);
  return { total: Number(count?.n ?? 0), items: await withLeaves(db, organizationId, rows) };
}

/** One verdict of the organisation by its id, undefined when there is none. */
export async function findVerdict(db: Db, organizationId: number, id: number): Promise<VerdictRow | undefined> {
  const rows = await db
    .selectFrom('verdicts')
    .select(['id', 'fingerprint', 'compliant', 'created_at', 'verdict'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
  return (await withLeaves(db, organizationId, rows))[0];
}

type StoredVerdict = { id: number | string; fingerprint: string; compliant: number | string; created_at: number | string; verdict: string };

async function withLeaves(db: Db, organizationId: number, rows: StoredVerdict[]): Promise<VerdictRow[]> {
  const leaves = await logIndexesOf(
    db,
    organizationId,
    'verdicts',
    rows.map((r) => Number(r.id)),
  );
  return rows.map((r) => ({
    id: Number(r.id),
    fingerprint: r.fingerprint,
    compliant: Boolean(Number(r.compliant)),
    createdAt: Number(r.created_at),
    verdict: r.verdict,
    logIndex: leaves.get(Number(r.id)) ?? null,
  }));
}

export const reads = { findVerdictLeaf, listVerdicts, findVerdict };
export const writes = { recordVerdict };
