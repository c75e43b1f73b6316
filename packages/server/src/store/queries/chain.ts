/**
 * Tamper evidence: every stored piece of evidence is appended, in the transaction that stores
 * it, to a hash chain of its organisation:
 *
 *   hash = SHA-256(previous hash ‖ canonical JSON of the record)
 *
 * The record names its organisation, type, time, the row it describes and a digest of that
 * row as stored. Verification proves both directions: every record holds (its hash, its link,
 * the row it vouches for), and every evidence row of the organisation is vouched for by a
 * record, so that rows inserted behind the server's back, or records removed from the end of
 * the chain, are found as well as rows that were changed (chain-verify.ts).
 */
import { createHash } from 'node:crypto';
import { insertChunks, isPostgres, type Db } from '../database.ts';
import { compiledOnce } from '../compiled-once.ts';
import { appendLeaves } from './log.ts';

export type EvidenceType = 'trail.begin' | 'attestation' | 'artifact' | 'snapshot' | 'approval' | 'review' | 'policy.version' | 'verdict';

/**
 * The rows a chain record can point at, with the columns its digest covers (the row as stored).
 * A trail is a summary updated in place by each begin (re-run CI jobs), so each begin vouches
 * for the row as it left it; its `last_modified_at`, which every attestation moves, is left out.
 * Columns added after rows were chained (`digestedWhenSet`) count only when not null, so that the
 * digests of those older rows stay what they were.
 */
export const digestColumns = {
  trails: [
    'id',
    'flow_id',
    'name',
    'description',
    'commit_sha',
    'repo_name',
    'git_commit_info',
    'repo_info',
    'origin_url',
    'external_urls',
    'user_data',
    'template_sha256',
    'created_by_token',
    'created_at',
  ],
  attestations: [
    'id',
    'trail_id',
    'name',
    'type',
    'data',
    'artifact_fingerprint',
    'attachment_sha256',
    'attachment_name',
    'compliant',
    'created_by_token',
    'created_at',
  ],
  artifacts: [
    'id',
    'organization_id',
    'flow_id',
    'trail_id',
    'fingerprint',
    'filename',
    'template_reference_name',
    'git_commit',
    'git_commit_info',
    'repo_info',
    'repo_name',
    'build_url',
    'commit_url',
    'repo_url',
    'external_urls',
    'annotations',
    'created_by_token',
    'created_at',
  ],
  snapshots: ['id', 'environment_id', 'snapshot_index', 'artifacts', 'created_by_token', 'created_at'],
  approvals: [
    'id',
    'flow_id',
    'release_number',
    'target_artifact',
    'base_artifact',
    'artifact_name',
    'description',
    'environment',
    'src_commit_list',
    'user_data',
    'created_by_token',
    'created_at',
  ],
  reviews: ['id', 'approval_id', 'state', 'comment', 'approved_by', 'approval_url', 'timestamp', 'created_by_token'],
  policy_versions: ['id', 'policy_id', 'version', 'comment', 'policy_yaml', 'sha256', 'created_by_token', 'created_at'],
  verdicts: ['id', 'organization_id', 'fingerprint', 'verdict', 'verdict_sha256', 'compliant', 'created_by_token', 'created_at'],
} as const;
export type DigestTable = keyof typeof digestColumns;

/** The columns a record's digest covers: a statement that stores a row can return them (RETURNING) for `appendEvidence`. */
export const digestColumnsOf = <T extends DigestTable>(table: T): (typeof digestColumns)[T] => digestColumns[table];

/** The table each type of record vouches for (in the order verification reports rows without a record). */
export const tableOf: Record<EvidenceType, DigestTable> = {
  'trail.begin': 'trails',
  attestation: 'attestations',
  artifact: 'artifacts',
  snapshot: 'snapshots',
  approval: 'approvals',
  review: 'reviews',
  'policy.version': 'policy_versions',
  verdict: 'verdicts',
};

export const genesisHash = '0'.repeat(64);

/**
 * What a record's `data` says of who stored its evidence: `by`, the id of the caller's token
 * (nothing when stored without one). `token evidence` finds a token's records by it.
 */
export const byToken = (tokenId: string | null): { by?: string } => (tokenId === null ? {} : { by: tokenId });

/** JSON with object keys sorted at every level: one text for one value, whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * `canonicalJson` of plain JSON data (what `JSON.parse` gives: no `toJSON`, no Buffers), the same
 * text, written by the engine's serialiser from key-sorted copies: several times faster, for
 * records built by the thousand (a snapshot's verdicts). An object with an array-index key, which
 * the engine would order by number, is written by `canonicalJson` instead.
 */
export function canonicalJsonOfPlain(value: unknown): string {
  let indexKey = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const keys = Object.keys(v).sort();
    const sorted: Record<string, unknown> = {};
    for (const k of keys) {
      if (!indexKey && arrayIndex.test(k)) indexKey = true;
      sorted[k] = (v as Record<string, unknown>)[k];
    }
    return sorted;
  });
  return indexKey ? canonicalJson(value) : (text ?? 'null');
}
const arrayIndex = /^(?:0|[1-9]\d*)$/;

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Digest columns added by later migrations (0014, 0015): part of a row's digest only when set. */
const digestedWhenSet = new Set(['created_by_token']);

/** A row's digest columns as its digest covers them: columns added later left out while null, big integers as numbers. */
export const digestedRow = (row: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(row)
      .filter(([k, v]) => v !== null || !digestedWhenSet.has(k))
      .map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]),
  );

/** Digest of a row's digest columns, as selected. */
export const digestOf = (row: Record<string, unknown>) => sha256(canonicalJson(digestedRow(row)));

/** The digest columns of `row`, in the order a select lists them (the digest sorts keys anyway). */
const pick = (row: Record<string, unknown>, columns: readonly string[]) => {
  const out: Record<string, unknown> = {};
  for (const column of columns) {
    if (!(column in row)) throw new Error(`the stored row lacks its digest column ${column}`);
    out[column] = row[column];
  }
  return out;
};

/** Digest of a row as the database holds it now. */
export async function rowDigest(db: Db, table: DigestTable, id: number): Promise<string | undefined> {
  const row = await (db as any)
    .selectFrom(table)
    .select(digestColumns[table] as unknown as string[])
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? digestOf(row) : undefined;
}

export interface EvidenceInput {
  organizationId: number;
  type: EvidenceType;
  at: number;
  /** The evidence row this record vouches for. */
  ref: { table: DigestTable; id: number };
  /** What else the record says (names, fingerprints, digests of attached bytes). */
  data: Record<string, unknown>;
  /**
   * The row's digest columns as the statement that stored it returned them (RETURNING), which
   * saves reading it back; read back when absent. Verification reads the row the same way.
   */
  row?: Record<string, unknown>;
}

/**
 * Appends a record to its organisation's chain. Must run in the transaction that wrote the
 * evidence; on PostgreSQL the organisation row is locked so concurrent appends take turns, and
 * the lock is held until COMMIT: callers store their rows first and append last, so that only
 * the append and the commit are serialised.
 */
export async function appendEvidence(db: Db, input: EvidenceInput): Promise<{ seq: number; hash: string }> {
  return (await appendEvidenceBatch(db, [input]))[0]!;
}

/**
 * Appends records, in the order given, to their organisations' chains (see `appendEvidence`):
 * one lock, one read of the head and one insert per organisation, however many records, so
 * that a batch of attestations (PostgreSQL's group commit) holds the lock about as long as one.
 * Organisations are locked in id order, so that two batches never wait for each other's.
 */
export async function appendEvidenceBatch(db: Db, inputs: EvidenceInput[]): Promise<Array<{ seq: number; hash: string }>> {
  if (!db.isTransaction) throw new Error('appendEvidence must run inside the transaction that stores the evidence');
  // Digests before the lock: they do not depend on the chain.
  const digests: string[] = [];
  for (const input of inputs) {
    const digest = input.row ? digestOf(pick(input.row, digestColumns[input.ref.table])) : await rowDigest(db, input.ref.table, input.ref.id);
    if (!digest) throw new Error(`evidence row ${input.ref.table}#${input.ref.id} not found`);
    digests.push(digest);
  }
  const postgres = isPostgres(db);
  const byOrganization = new Map<number, number[]>();
  inputs.forEach((input, i) => byOrganization.set(input.organizationId, [...(byOrganization.get(input.organizationId) ?? []), i]));
  const appended: Array<{ seq: number; hash: string }> = [];
  for (const [organizationId, indexes] of [...byOrganization].sort(([a], [b]) => a - b)) {
    const [org] = await organizationName(db, { id: organizationId }, { lock: postgres });
    if (!org) throw new Error(`organisation #${organizationId} not found`);
    // A statement of its own after the lock: on PostgreSQL it reads the head as last committed
    // (a statement that waited for the lock would still see the head from before the wait).
    const [last] = await chainHead(db, { organizationId });
    let seq = Number(last?.seq ?? 0);
    let previous = last?.hash ?? genesisHash;
    const records = indexes.map((i) => {
      const input = inputs[i]!;
      seq++;
      const record = canonicalJson({ seq, org: org.name, type: input.type, at: input.at, ref: input.ref, digest: digests[i], data: input.data });
      const hash = sha256(previous + record);
      const row = { organizationId, seq, type: input.type, record, previous, hash, at: input.at };
      appended[i] = { seq, hash };
      previous = hash;
      return row;
    });
    for (const chunk of insertChunks(records)) await insertRecords(db, { records: chunk });
    // The same records, as the leaves of the organisation's Merkle tree (log.ts).
    await appendLeaves(
      db,
      organizationId,
      records[0]!.seq - 1,
      records.map((r) => r.record),
    );
  }
  return appended;
}

/** The organisation's name; on PostgreSQL its row locked until COMMIT (appends take turns). */
const organizationName = compiledOnce((db, v: { id: number }, o: { lock: boolean }) => {
  const query = db.selectFrom('organizations').select('name').where('id', '=', v.id);
  return o.lock ? query.forUpdate() : query;
});
const chainHead = compiledOnce((db, v: { organizationId: number }) =>
  db.selectFrom('evidence_log').select(['seq', 'hash']).where('organization_id', '=', v.organizationId).orderBy('seq', 'desc').limit(1),
);
const insertRecords = compiledOnce(
  (db, v: { records: Array<{ organizationId: number; seq: number; type: string; record: string; previous: string; hash: string; at: number }> }) =>
    db.insertInto('evidence_log').values(
      v.records.map((r) => ({
        organization_id: r.organizationId,
        seq: r.seq,
        type: r.type,
        record: r.record,
        prev_hash: r.previous,
        hash: r.hash,
        created_at: r.at,
      })),
    ),
);
