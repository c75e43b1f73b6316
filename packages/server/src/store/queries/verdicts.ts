/**
 * Verdicts of `assert artifact` (migration 0026), recorded as evidence: once per distinct verdict
 * text in an organisation, so that asserting again what was judged already (the same evidence,
 * policy versions and outcome) reads its record instead of writing another.
 */
import { compiledOnce } from '../compiled-once.ts';
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

const byDigest = compiledOnce((db, v: { organizationId: number; sha256: string }) =>
  db.selectFrom('verdicts').select('id').where('organization_id', '=', v.organizationId).where('verdict_sha256', '=', v.sha256),
);

/** The leaf of the verdict with this text in the organisation, if it was recorded. */
export async function findVerdictLeaf(db: Db, organizationId: number, verdict: string): Promise<number | undefined> {
  const row = await byDigest(db, { organizationId, sha256: sha256(verdict) }).then((rows) => rows[0]);
  if (!row) return undefined;
  return (await logIndexesOf(db, organizationId, 'verdicts', [Number(row.id)])).get(Number(row.id));
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
