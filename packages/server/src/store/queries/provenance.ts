/**
 * Evidence by who stored it: the token a stored row names, and what one token wrote (after a
 * leak, to know what to review).
 */
import { inListChunks, type Db } from '../database.ts';
import type { EvidenceType } from './chain.ts';

/** One piece of evidence a token stored, as its chain record describes it. */
export type TokenEvidence = { at: number } & (
  | { kind: 'trail.begin'; flow: string; trail: string; created: boolean }
  | { kind: 'attestation'; flow: string; trail: string; attestationId: number; name: string; type: string }
  | { kind: 'artifact'; flow: string; trail: string; artifactId: number; fingerprint: string; templateReferenceName: string }
  | { kind: 'snapshot'; environment: string; snapshotIndex: number }
  | { kind: 'approval'; flow: string; releaseNumber: number }
  | { kind: 'review'; flow: string; releaseNumber: number; state: string; approvedBy: string }
  | { kind: 'policy.version'; policy: string; version: number }
  | { kind: 'verdict'; fingerprint: string; compliant: boolean }
);

/** A token as evidence names it: its public id and the description it was created with. */
export interface TokenRef {
  tokenId: string;
  description: string | null;
}

/** The token a row names (`created_by_token`, with its description from a left join of `tokens`). */
export const tokenRef = (tokenId: string | null, description: string | null): TokenRef | null => (tokenId === null ? null : { tokenId, description });

type RecordData = Record<string, unknown> & { by?: unknown };

/**
 * Everything the token stored, in chain order (oldest first): each record whose `data.by` names
 * it, within the token's organisation. Evidence stored before tokens were recorded (migration
 * 0014) names none. Undefined when there is no such token.
 */
export async function evidenceOfToken(db: Db, tokenId: string): Promise<{ organization: string; items: TokenEvidence[] } | undefined> {
  const token = await db
    .selectFrom('tokens')
    .innerJoin('organizations', 'organizations.id', 'tokens.organization_id')
    .select(['tokens.organization_id', 'organizations.name'])
    .where('tokens.id', '=', tokenId)
    .executeTakeFirst();
  if (!token) return undefined;
  // Token ids are letters and digits, so the pattern holds no wildcard. It also matches a record
  // whose input merely contains the id (a trail's user data): the parse below decides.
  const rows = await db
    .selectFrom('evidence_log')
    .select(['type', 'record', 'created_at'])
    .where('organization_id', '=', token.organization_id)
    .where('record', 'like', `%"by":"${tokenId}"%`)
    .orderBy('seq')
    .execute();
  const records = rows.flatMap((row) => {
    const parsed = JSON.parse(row.record) as { ref?: { id?: unknown } | null; data?: RecordData };
    return parsed.data?.by === tokenId ? [{ type: row.type as EvidenceType, at: Number(row.created_at), id: Number(parsed.ref?.id), data: parsed.data }] : [];
  });
  // A review's record names its approval by id; its flow and release number are read here.
  const approvalIds = [...new Set(records.filter((r) => r.type === 'review').map((r) => Number(r.data.approval_id)))];
  const approvals = new Map<number, { flow: string; releaseNumber: number }>();
  for (const chunk of inListChunks(approvalIds)) {
    const found = await db
      .selectFrom('approvals')
      .innerJoin('flows', 'flows.id', 'approvals.flow_id')
      .select(['approvals.id', 'approvals.release_number', 'flows.name'])
      .where('approvals.id', 'in', chunk)
      .execute();
    for (const a of found) approvals.set(Number(a.id), { flow: a.name, releaseNumber: Number(a.release_number) });
  }
  const items = records.map(({ type, at, id, data }): TokenEvidence => {
    const text = (key: string) => String(data[key]);
    switch (type) {
      case 'trail.begin':
        return { kind: type, at, flow: text('flow'), trail: text('trail'), created: data.created === true };
      case 'attestation':
        return { kind: type, at, flow: text('flow'), trail: text('trail'), attestationId: id, name: text('name'), type: text('type') };
      case 'artifact':
        return {
          kind: type,
          at,
          flow: text('flow'),
          trail: text('trail'),
          artifactId: id,
          fingerprint: text('fingerprint'),
          templateReferenceName: text('template_reference_name'),
        };
      case 'snapshot':
        return { kind: type, at, environment: text('environment'), snapshotIndex: Number(data.snapshot_index) };
      case 'approval':
        return { kind: type, at, flow: text('flow'), releaseNumber: Number(data.release_number) };
      case 'review': {
        const approval = approvals.get(Number(data.approval_id)) ?? { flow: '?', releaseNumber: 0 };
        return { kind: type, at, ...approval, state: text('state'), approvedBy: text('approved_by') };
      }
      case 'policy.version':
        return { kind: type, at, policy: text('policy'), version: Number(data.version) };
      case 'verdict':
        return { kind: type, at, fingerprint: text('fingerprint'), compliant: data.compliant === true };
    }
  });
  return { organization: token.name, items };
}

export const reads = { evidenceOfToken };
export const writes = {};
