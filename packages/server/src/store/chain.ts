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
 * the chain, are found as well as rows that were changed.
 */
import { createHash } from 'node:crypto';
import { PostgresAdapter } from 'kysely';
import type { Db } from './database.ts';
import { blobAddress } from './organizations.ts';
import { compiledOnce } from './compiled-once.ts';

export type EvidenceType = 'trail.begin' | 'attestation' | 'snapshot' | 'approval' | 'review';

/**
 * The rows a chain record can point at, with the columns its digest covers (the row as stored).
 * A trail is a summary updated in place by each begin (re-run CI jobs), so each begin vouches
 * for the row as it left it; its `last_modified_at`, which every attestation moves, is left out.
 */
const digestColumns = {
  trails: ['id', 'flow_id', 'name', 'description', 'commit_sha', 'repo_name', 'git_commit_info', 'repo_info', 'origin_url', 'external_urls', 'user_data', 'template_sha256', 'created_at'],
  attestations: ['id', 'trail_id', 'name', 'type', 'data', 'artifact_fingerprint', 'attachment_sha256', 'attachment_name', 'compliant', 'created_at'],
  snapshots: ['id', 'environment_id', 'snapshot_index', 'artifacts', 'created_at'],
  approvals: ['id', 'flow_id', 'release_number', 'target_artifact', 'base_artifact', 'artifact_name', 'description', 'environment', 'src_commit_list', 'user_data', 'created_at'],
  reviews: ['id', 'approval_id', 'state', 'comment', 'approved_by', 'approval_url', 'timestamp'],
} as const;
export type DigestTable = keyof typeof digestColumns;

/** The columns a record's digest covers: a statement that stores a row can return them (RETURNING) for `appendEvidence`. */
export const digestColumnsOf = <T extends DigestTable>(table: T): (typeof digestColumns)[T] => digestColumns[table];

/** The table each type of record vouches for (in the order verification reports rows without a record). */
const tableOf: Record<EvidenceType, DigestTable> = {
  'trail.begin': 'trails', attestation: 'attestations', snapshot: 'snapshots', approval: 'approvals', review: 'reviews',
};

export const genesisHash = '0'.repeat(64);

/** JSON with object keys sorted at every level: one text for one value, whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Digest of a row's digest columns, as selected. */
const digestOf = (row: Record<string, unknown>) =>
  sha256(canonicalJson(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]))));

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
  const row = await (db as any).selectFrom(table).select(digestColumns[table] as unknown as string[]).where('id', '=', id).executeTakeFirst();
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
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
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
    await insertRecords(db, { records });
  }
  return appended;
}

/** The organisation's name; on PostgreSQL its row locked until COMMIT (appends take turns). */
const organizationName = compiledOnce((db, v: { id: number }, o: { lock: boolean }) => {
  const query = db.selectFrom('organizations').select('name').where('id', '=', v.id);
  return o.lock ? query.forUpdate() : query;
});
const chainHead = compiledOnce((db, v: { organizationId: number }) =>
  db.selectFrom('evidence_log').select(['seq', 'hash']).where('organization_id', '=', v.organizationId).orderBy('seq', 'desc').limit(1));
const insertRecords = compiledOnce((db, v: { records: Array<{ organizationId: number; seq: number; type: string; record: string; previous: string; hash: string; at: number }> }) =>
  db.insertInto('evidence_log').values(v.records.map((r) => ({
    organization_id: r.organizationId, seq: r.seq, type: r.type, record: r.record, prev_hash: r.previous, hash: r.hash, created_at: r.at,
  }))));

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


/**
 * Verifies an organisation's evidence in one consistent view of the database (a read
 * transaction; repeatable read on PostgreSQL), so that evidence committed meanwhile is seen
 * either with its chain record or not at all. Reports the first broken link of the chain; when
 * the chain itself holds, the earliest record that vouches for a row it may not (a row vouched
 * for twice, a row of another organisation, a trail changed since its latest begin), else the
 * earliest evidence row that no record vouches for.
 */
export function verifyChain(db: Db, organizationId: number, orgName: string): Promise<VerifyResult> {
  if (db.isTransaction) return verifyIn(db, organizationId, orgName);
  const snapshot = db.getExecutor().adapter instanceof PostgresAdapter ? db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only') : db.transaction();
  return snapshot.execute((trx) => verifyIn(trx, organizationId, orgName));
}

async function verifyIn(db: Db, organizationId: number, orgName: string): Promise<VerifyResult> {
  const walk = await walkChain(db, organizationId, orgName);
  if ('broken' in walk) return walk.broken;
  const problems: BrokenLink[] = [];
  let unaccounted = await scanTrails(db, organizationId, walk, problems);
  for (const table of ['attestations', 'snapshots', 'approvals', 'reviews'] as const) {
    const vouched = walk.vouched[table];
    for (let after = 0; ;) {
      const rows = await ownedRows[table](db, organizationId, after, pageSize);
      for (const row of rows) {
        const id = Number(row.id);
        if (!vouched.delete(id) && (!unaccounted || Number(row.at) < unaccounted.at)) unaccounted = { table, id, at: Number(row.at) };
      }
      if (rows.length < pageSize) break;
      after = Number(rows[rows.length - 1]!.id);
    }
    // What is left was found by the walk, yet is not the organisation's: records are kept in seq order.
    for (const [id, seq] of vouched) {
      problems.push({ seq, type: typeOf(table), ref: { table, id }, reason: `${table}#${id} belongs to another organisation` });
      break;
    }
  }
  if (unaccounted) {
    const { table, id } = unaccounted;
    problems.push({ seq: walk.records + 1, type: typeOf(table), ref: { table, id }, reason: `${table}#${id} has no chain record: it was written behind the server's back, or its record was removed` });
  }
  const first = problems.sort((a, b) => a.seq - b.seq)[0];
  if (!first) return { org: orgName, ok: true, records: walk.records, head: walk.head, firstBroken: null };
  const records = first.seq - 1;
  const head = records === walk.records ? walk.head : records === 0 ? genesisHash
    : (await db.selectFrom('evidence_log').select('hash').where('organization_id', '=', organizationId).where('seq', '=', records).executeTakeFirstOrThrow()).hash;
  return { org: orgName, ok: false, records, head, firstBroken: first };
}

const pageSize = 1000;
const typeOf = (table: DigestTable) => (Object.keys(tableOf) as EvidenceType[]).find((type) => tableOf[type] === table)!;

interface Walk {
  records: number;
  head: string;
  /** Per table, the rows the chain vouches for and the record that does, in chain order. */
  vouched: Record<Exclude<DigestTable, 'trails'>, Map<number, number>>;
  /** Per trail, its latest begin record and the digest of the row it left. */
  latestBegin: Map<number, { seq: number; digest: unknown }>;
  /** Trails begun before begin records named their row (flow and trail name, NUL-separated). */
  legacyBegins: Set<string>;
}

/** Walks the chain, recomputing every hash and the digest of every append-only row it vouches for. */
async function walkChain(db: Db, organizationId: number, orgName: string): Promise<Walk | { broken: VerifyResult }> {
  const walk: Walk = { records: 0, head: genesisHash, vouched: { attestations: new Map(), snapshots: new Map(), approvals: new Map(), reviews: new Map() }, latestBegin: new Map(), legacyBegins: new Set() };
  for (let after = 0; ;) {
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
      const broken = (reason: string) => ({ broken: { org: orgName, ok: false, records: walk.records, head: walk.head, firstBroken: { seq, type: row.type, ref, reason } } });
      if (seq !== walk.records + 1) return broken(`expected record ${walk.records + 1}, found ${seq}: a record is missing`);
      if (row.prev_hash !== walk.head) return broken('previous-hash link does not match the record before it');
      if (sha256(walk.head + row.record) !== row.hash) return broken('record content does not match its hash');
      if (parsed.seq !== seq || parsed.org !== orgName) return broken('record names another position or organisation');
      const table = Object.hasOwn(tableOf, row.type) ? tableOf[row.type as EvidenceType] : undefined;
      if (!table) return broken(`unknown type of record '${row.type}'`);
      if (!ref) {
        const { flow, trail } = parsed.data ?? {};
        if (table !== 'trails' || typeof flow !== 'string' || typeof trail !== 'string') return broken('record names no evidence row');
        walk.legacyBegins.add(`${flow}\0${trail}`); // written before begin records named their row: it vouches for the trail's existence only
      } else if (ref.table !== table || !Number.isSafeInteger(ref.id)) {
        return broken(`a ${row.type} record cannot vouch for ${String(ref.table)}#${String(ref.id)}`);
      } else if (table === 'trails') {
        walk.latestBegin.set(ref.id, { seq, digest: parsed.digest }); // checked once the latest begin of each trail is known
      } else {
        const earlier = walk.vouched[table].get(ref.id);
        if (earlier !== undefined) return broken(`${table}#${ref.id} is vouched for by record ${earlier} already`);
        walk.vouched[table].set(ref.id, seq);
        const digest = await rowDigest(db, table, ref.id);
        if (!digest) return broken(`${table}#${ref.id} is missing`);
        if (digest !== parsed.digest) return broken(`${table}#${ref.id} was changed after it was stored`);
      }
      const attachment = parsed.data?.attachment_sha256;
      if (typeof attachment === 'string') {
        const blob = await db.selectFrom('blobs').select('content').where('sha256', '=', attachment).executeTakeFirst();
        if (!blob) return broken(`attachment ${attachment} is missing`);
        if (blobAddress(blob.content) !== attachment) return broken(`attachment ${attachment} was changed after it was stored`);
      }
      walk.head = row.hash;
      walk.records++;
    }
    if (rows.length < pageSize) return walk;
    after = Number(rows[rows.length - 1]!.seq);
  }
}

type Unaccounted = { table: DigestTable; id: number; at: number } | undefined;

/** Checks every trail of the organisation against its latest begin record; returns the earliest trail that no record vouches for. */
async function scanTrails(db: Db, organizationId: number, walk: Walk, problems: BrokenLink[]): Promise<Unaccounted> {
  let unaccounted: Unaccounted;
  const trailColumns = digestColumns.trails.map((c) => `trails.${c}` as const);
  for (let after = 0; ;) {
    const rows = await db.selectFrom('trails').innerJoin('flows', 'flows.id', 'trails.flow_id').select([...trailColumns, 'flows.name as flow_name'])
      .where('flows.organization_id', '=', organizationId).where('trails.id', '>', after).orderBy('trails.id').limit(pageSize).execute();
    for (const { flow_name, ...trail } of rows) {
      const id = Number(trail.id);
      const begin = walk.latestBegin.get(id);
      walk.latestBegin.delete(id);
      if (begin && begin.digest !== digestOf(trail)) {
        problems.push({ seq: begin.seq, type: 'trail.begin', ref: { table: 'trails', id }, reason: `trails#${id} was changed after its latest begin` });
      } else if (!begin && !walk.legacyBegins.has(`${flow_name}\0${trail.name}`) && (!unaccounted || Number(trail.created_at) < unaccounted.at)) {
        unaccounted = { table: 'trails', id, at: Number(trail.created_at) };
      }
    }
    if (rows.length < pageSize) break;
    after = Number(rows[rows.length - 1]!.id);
  }
  for (const [id, { seq }] of walk.latestBegin) {
    problems.push({ seq, type: 'trail.begin', ref: { table: 'trails', id }, reason: `trails#${id} is missing or belongs to another organisation` });
    break;
  }
  return unaccounted;
}

/** The ids (and times) of an organisation's rows of each append-only evidence table, a page at a time in id order. */
const ownedRows: Record<Exclude<DigestTable, 'trails'>, (db: Db, organizationId: number, after: number, limit: number) => Promise<Array<{ id: number; at: number }>>> = {
  attestations: (db, org, after, limit) => db.selectFrom('attestations').innerJoin('trails', 'trails.id', 'attestations.trail_id').innerJoin('flows', 'flows.id', 'trails.flow_id')
    .select(['attestations.id as id', 'attestations.created_at as at']).where('flows.organization_id', '=', org).where('attestations.id', '>', after)
    .orderBy('attestations.id').limit(limit).execute(),
  snapshots: (db, org, after, limit) => db.selectFrom('snapshots').innerJoin('environments', 'environments.id', 'snapshots.environment_id')
    .select(['snapshots.id as id', 'snapshots.created_at as at']).where('environments.organization_id', '=', org).where('snapshots.id', '>', after)
    .orderBy('snapshots.id').limit(limit).execute(),
  approvals: (db, org, after, limit) => db.selectFrom('approvals').innerJoin('flows', 'flows.id', 'approvals.flow_id')
    .select(['approvals.id as id', 'approvals.created_at as at']).where('flows.organization_id', '=', org).where('approvals.id', '>', after)
    .orderBy('approvals.id').limit(limit).execute(),
  reviews: (db, org, after, limit) => db.selectFrom('reviews').innerJoin('approvals', 'approvals.id', 'reviews.approval_id').innerJoin('flows', 'flows.id', 'approvals.flow_id')
    .select(['reviews.id as id', 'reviews.timestamp as at']).where('flows.organization_id', '=', org).where('reviews.id', '>', after)
    .orderBy('reviews.id').limit(limit).execute(),
};
