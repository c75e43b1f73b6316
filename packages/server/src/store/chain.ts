/**
 * Tamper evidence: every stored piece of evidence is appended, in the transaction that stores
 * it, to a hash chain of its organisation:
 *
 *   hash = SHA-256(previous hash ‖ canonical JSON of the record)
 *
 * The record names its organisation, type, time, the row it describes and a digest of that
 * row as stored. Verification walks the chain, recomputes every hash and every row digest,
 * and reports the first link that does not hold.
 */
import { createHash } from 'node:crypto';
import { PostgresAdapter } from 'kysely';
import type { Db } from './database.ts';

export type EvidenceType = 'trail.begin' | 'attestation' | 'snapshot' | 'approval' | 'review';




/** The rows a chain record can point at, with the columns its digest covers (the row as stored). */
const digestColumns = {
  attestations: ['id', 'trail_id', 'name', 'type', 'data', 'artifact_fingerprint', 'attachment_sha256', 'attachment_name', 'compliant', 'created_at'],
  snapshots: ['id', 'environment_id', 'snapshot_index', 'artifacts', 'created_at'],
  approvals: ['id', 'flow_id', 'release_number', 'target_artifact', 'base_artifact', 'artifact_name', 'description', 'environment', 'src_commit_list', 'user_data', 'created_at'],
  reviews: ['id', 'approval_id', 'state', 'comment', 'approved_by', 'approval_url', 'timestamp'],
} as const;
export type DigestTable = keyof typeof digestColumns;

export const genesisHash = '0'.repeat(64);

/** JSON with object keys sorted at every level: one text for one value, whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Digest of a row as the database holds it now. */
export async function rowDigest(db: Db, table: DigestTable, id: number): Promise<string | undefined> {
  const row = await (db as any).selectFrom(table).select(digestColumns[table] as unknown as string[]).where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const normalised = Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]));
  return sha256(canonicalJson(normalised));
}

export interface EvidenceInput {
  organizationId: number;
  type: EvidenceType;
  at: number;
  /** The evidence row this record vouches for, if any (a trail begin has none: its content is in `data`). */
  ref?: { table: DigestTable; id: number };
  /** What else the record says (names, fingerprints, digests of attached bytes). */
  data: Record<string, unknown>;
}

/**
 * Appends a record to its organisation's chain. Must run in the transaction that wrote the
 * evidence; on PostgreSQL the organisation row is locked so concurrent appends take turns.
 */
export async function appendEvidence(db: Db, input: EvidenceInput): Promise<{ seq: number; hash: string }> {
  if (!db.isTransaction) throw new Error('appendEvidence must run inside the transaction that stores the evidence');
  let org = db.selectFrom('organizations').select('name').where('id', '=', input.organizationId);
  if (db.getExecutor().adapter instanceof PostgresAdapter) org = org.forUpdate();
  const { name } = await org.executeTakeFirstOrThrow();
  const last = await db.selectFrom('evidence_log').select(['seq', 'hash']).where('organization_id', '=', input.organizationId)
    .orderBy('seq', 'desc').limit(1).executeTakeFirst();
  const seq = Number(last?.seq ?? 0) + 1;
  const previous = last?.hash ?? genesisHash;
  const digest = input.ref ? await rowDigest(db, input.ref.table, input.ref.id) : null;
  if (input.ref && !digest) throw new Error(`evidence row ${input.ref.table}#${input.ref.id} not found`);
  const record = canonicalJson({ seq, org: name, type: input.type, at: input.at, ref: input.ref ?? null, digest, data: input.data });
  const hash = sha256(previous + record);
  await db.insertInto('evidence_log').values({
    organization_id: input.organizationId, seq, type: input.type, record, prev_hash: previous, hash, created_at: input.at,
  }).execute();
  return { seq, hash };
}

/**
 * Runs `work` in the caller's transaction, or in a new one when there is none, so that a piece
 * of evidence and its chain record always commit together.
 */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

export interface BrokenLink {
  seq: number;
  type: string;
  ref: { table: string; id: number } | null;
  reason: string;
}

export interface VerifyResult {
  org: string;
  ok: boolean;
  /** Records checked. */
  records: number;
  /** Hash of the last record: publish it elsewhere to pin today's state. */
  head: string;
  firstBroken: BrokenLink | null;
}

/** Recomputes an organisation's chain and the rows it vouches for; reports the first broken link. */
export async function verifyChain(db: Db, organizationId: number, orgName: string): Promise<VerifyResult> {
  let previous = genesisHash;
  let expectedSeq = 1;
  let records = 0;
  const pageSize = 1000;
  for (let after = 0; ; ) {
    const rows = await db.selectFrom('evidence_log').select(['seq', 'type', 'record', 'prev_hash', 'hash'])
      .where('organization_id', '=', organizationId).where('seq', '>', after).orderBy('seq').limit(pageSize).execute();
    for (const row of rows) {
      const seq = Number(row.seq);
      let parsed: { seq?: number; org?: string; ref?: { table: DigestTable; id: number } | null; digest?: string | null; data?: Record<string, unknown> } = {};
      try {
        parsed = JSON.parse(row.record);
      } catch {
        // an unreadable record fails the hash check below
      }
      const ref = parsed.ref ?? null;
      const broken = (reason: string): VerifyResult => ({ org: orgName, ok: false, records, head: previous, firstBroken: { seq, type: row.type, ref, reason } });
      if (seq !== expectedSeq) return broken(`expected record ${expectedSeq}, found ${seq}: a record is missing`);
      if (row.prev_hash !== previous) return broken('previous-hash link does not match the record before it');
      if (sha256(previous + row.record) !== row.hash) return broken('record content does not match its hash');
      if (parsed.seq !== seq || parsed.org !== orgName) return broken('record names another position or organisation');
      if (ref) {
        const digest = await rowDigest(db, ref.table, ref.id);
        if (!digest) return broken(`${ref.table}#${ref.id} is missing`);
        if (digest !== parsed.digest) return broken(`${ref.table}#${ref.id} was changed after it was stored`);
      }
      const attachment = parsed.data?.attachment_sha256;
      if (typeof attachment === 'string') {
        const blob = await db.selectFrom('blobs').select('content').where('sha256', '=', attachment).executeTakeFirst();
        if (!blob) return broken(`attachment ${attachment} is missing`);
        if (createHash('sha256').update(blob.content).digest('hex') !== attachment) return broken(`attachment ${attachment} was changed after it was stored`);
      }
      previous = row.hash;
      expectedSeq++;
      records++;
    }
    if (rows.length < pageSize) break;
    after = Number(rows[rows.length - 1]!.seq);
  }
  return { org: orgName, ok: true, records, head: previous, firstBroken: null };
}
