/** Evidence by who stored it: what one token wrote (after a leak, to know what to review). */
import type { Db } from './database.ts';

/** One piece of evidence a token stored: a trail it began (or began again), or an attestation. */
export type TokenEvidence =
  | { kind: 'trail.begin'; at: number; flow: string; trail: string; created: boolean }
  | { kind: 'attestation'; at: number; flow: string; trail: string; attestationId: number; name: string; type: string };

/**
 * Everything the token stored, oldest first: the trail begins whose chain record names it and the
 * attestations stored with it (migration 0014 on; evidence from before names no token). Within
 * the token's organisation only. Undefined when there is no such token.
 */
export async function evidenceOfToken(db: Db, tokenId: string): Promise<{ organization: string; items: TokenEvidence[] } | undefined> {
  const token = await db.selectFrom('tokens').innerJoin('organizations', 'organizations.id', 'tokens.organization_id')
    .select(['tokens.organization_id', 'organizations.name']).where('tokens.id', '=', tokenId).executeTakeFirst();
  if (!token) return undefined;
  const items: TokenEvidence[] = [];
  // A begin's record says who began it (`data.by`); the trail row keeps only who created it.
  // Token ids are letters and digits, so the pattern holds no wildcard; the parse below decides.
  const begins = await db.selectFrom('evidence_log').select(['record', 'created_at'])
    .where('organization_id', '=', token.organization_id).where('type', '=', 'trail.begin').where('record', 'like', `%"by":"${tokenId}"%`)
    .orderBy('seq').execute();
  for (const row of begins) {
    const data = (JSON.parse(row.record) as { data?: { by?: unknown; flow?: unknown; trail?: unknown; created?: unknown } }).data;
    if (data?.by !== tokenId) continue;
    items.push({ kind: 'trail.begin', at: Number(row.created_at), flow: String(data.flow), trail: String(data.trail), created: data.created === true });
  }
  const attestations = await db.selectFrom('attestations as a').innerJoin('trails as t', 't.id', 'a.trail_id').innerJoin('flows as f', 'f.id', 't.flow_id')
    .select(['a.id', 'a.name', 'a.type', 'a.created_at', 't.name as trail', 'f.name as flow'])
    .where('a.created_by_token', '=', tokenId).where('f.organization_id', '=', token.organization_id)
    .orderBy('a.id').execute();
  for (const a of attestations) {
    items.push({ kind: 'attestation', at: Number(a.created_at), flow: a.flow, trail: a.trail, attestationId: Number(a.id), name: a.name, type: a.type });
  }
  // Stable: begins keep their chain order and attestations their id order among equal times.
  items.sort((x, y) => x.at - y.at);
  return { organization: token.name, items };
}
