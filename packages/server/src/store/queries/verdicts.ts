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

export const reads = { findVerdictLeaf };
export const writes = { recordVerdict };
