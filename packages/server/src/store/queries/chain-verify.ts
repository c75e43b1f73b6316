/**
 * Verifying an organisation's chain (see chain.ts for what is chained): the walk over its
 * records, then every evidence row checked against them the other way round.
 */
import { sql } from 'kysely';
import { isPostgres, type Db } from '../database.ts';
import { blobAddress } from './blobs.ts';
import { digestColumns, digestOf, genesisHash, rowDigest, sha256, tableOf, type DigestTable, type EvidenceType } from './chain.ts';

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
  const snapshot = isPostgres(db) ? db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only') : db.transaction();
  return snapshot.execute((trx) => verifyIn(trx, organizationId, orgName));
}

async function verifyIn(db: Db, organizationId: number, orgName: string): Promise<VerifyResult> {
  const walk = await walkChain(db, organizationId, orgName);
  if ('broken' in walk) return walk.broken;
  const problems: BrokenLink[] = [];
  let unaccounted = await scanTrails(db, organizationId, walk, problems);
  for (const table of ['attestations', 'artifacts', 'snapshots', 'approvals', 'reviews', 'policy_versions', 'verdicts'] as const) {
    const vouched = walk.vouched[table];
    for (let after = 0; ; ) {
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
    problems.push({
      seq: walk.records + 1,
      type: typeOf(table),
      ref: { table, id },
      reason: `${table}#${id} has no chain record: it was written behind the server's back, or its record was removed`,
    });
  }
  const first = problems.sort((a, b) => a.seq - b.seq)[0];
  if (!first) return { org: orgName, ok: true, records: walk.records, head: walk.head, firstBroken: null };
  const records = first.seq - 1;
  const head =
    records === walk.records
      ? walk.head
      : records === 0
        ? genesisHash
        : (
            await db
              .selectFrom('evidence_log')
              .select('hash')
              .where('organization_id', '=', organizationId)
              .where('seq', '=', records)
              .executeTakeFirstOrThrow()
          ).hash;
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
  const walk: Walk = {
    records: 0,
    head: genesisHash,
    vouched: {
      attestations: new Map(),
      artifacts: new Map(),
      snapshots: new Map(),
      approvals: new Map(),
      reviews: new Map(),
      policy_versions: new Map(),
      verdicts: new Map(),
    },
    latestBegin: new Map(),
    legacyBegins: new Set(),
  };
  for (let after = 0; ; ) {
    const rows = await db
      .selectFrom('evidence_log')
      .select(['seq', 'type', 'record', 'prev_hash', 'hash'])
      .where('organization_id', '=', organizationId)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    for (const row of rows) {
      const seq = Number(row.seq);
      let parsed: { seq?: number; org?: string; ref?: { table: DigestTable; id: number } | null; digest?: string | null; data?: Record<string, unknown> } = {};
      try {
        parsed = JSON.parse(row.record);
      } catch {
        // an unreadable record fails the hash check below
      }
      const ref = parsed.ref ?? null;
      const broken = (reason: string) => ({
        broken: { org: orgName, ok: false, records: walk.records, head: walk.head, firstBroken: { seq, type: row.type, ref, reason } },
      });
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
        const address = await storedAddress(db, attachment);
        if (address === undefined) return broken(`attachment ${attachment} is missing`);
        if (address !== attachment) return broken(`attachment ${attachment} was changed after it was stored`);
      }
      walk.head = row.hash;
      walk.records++;
    }
    if (rows.length < pageSize) return walk;
    after = Number(rows[rows.length - 1]!.seq);
  }
}

/**
 * The SHA-256 of a stored blob's bytes, recomputed; undefined when there is none. PostgreSQL
 * hashes them itself, so that no attachment crosses to this process and its event loop; on
 * SQLite verification runs on a thread of its own (chain-verify-thread.ts).
 */
async function storedAddress(db: Db, address: string): Promise<string | undefined> {
  if (isPostgres(db)) {
    const row = await db
      .selectFrom('blobs')
      .select(sql<string>`encode(sha256(content), 'hex')`.as('recomputed'))
      .where('sha256', '=', address)
      .executeTakeFirst();
    return row?.recomputed;
  }
  const blob = await db.selectFrom('blobs').select('content').where('sha256', '=', address).executeTakeFirst();
  return blob && blobAddress(blob.content);
}

type Unaccounted = { table: DigestTable; id: number; at: number } | undefined;

/** Checks every trail of the organisation against its latest begin record; returns the earliest trail that no record vouches for. */
async function scanTrails(db: Db, organizationId: number, walk: Walk, problems: BrokenLink[]): Promise<Unaccounted> {
  let unaccounted: Unaccounted;
  const trailColumns = digestColumns.trails.map((c) => `trails.${c}` as const);
  for (let after = 0; ; ) {
    const rows = await db
      .selectFrom('trails')
      .innerJoin('flows', 'flows.id', 'trails.flow_id')
      .select([...trailColumns, 'flows.name as flow_name'])
      .where('flows.organization_id', '=', organizationId)
      .where('trails.id', '>', after)
      .orderBy('trails.id')
      .limit(pageSize)
      .execute();
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

type OwnedPage = (db: Db, organizationId: number, after: number, limit: number) => Promise<Array<{ id: number; at: number }>>;

/**
 * A page, in id order, of the rows of `table` that belong to an organisation: `joins` lead from
 * the table to the column naming the organisation (`owner`); `at` is the row's time column.
 */
const ownedPage =
  (table: string, at: string, owner: string, joins: Array<[string, string, string]>): OwnedPage =>
  (db, org, after, limit) => {
    let query: any = db.selectFrom(table as 'attestations');
    for (const [joined, left, right] of joins) query = query.innerJoin(joined, left, right);
    return query
      .select([`${table}.id as id`, `${table}.${at} as at`])
      .where(owner, '=', org)
      .where(`${table}.id`, '>', after)
      .orderBy(`${table}.id`)
      .limit(limit)
      .execute();
  };

/** The ids (and times) of an organisation's rows of each append-only evidence table, a page at a time in id order. */
const ownedRows: Record<Exclude<DigestTable, 'trails'>, OwnedPage> = {
  attestations: ownedPage('attestations', 'created_at', 'flows.organization_id', [
    ['trails', 'trails.id', 'attestations.trail_id'],
    ['flows', 'flows.id', 'trails.flow_id'],
  ]),
  // Through the flow, like attestations: an artifact whose organization_id was changed still counts as its flow's organisation's.
  artifacts: ownedPage('artifacts', 'created_at', 'flows.organization_id', [['flows', 'flows.id', 'artifacts.flow_id']]),
  snapshots: ownedPage('snapshots', 'created_at', 'environments.organization_id', [['environments', 'environments.id', 'snapshots.environment_id']]),
  approvals: ownedPage('approvals', 'created_at', 'flows.organization_id', [['flows', 'flows.id', 'approvals.flow_id']]),
  reviews: ownedPage('reviews', 'timestamp', 'flows.organization_id', [
    ['approvals', 'approvals.id', 'reviews.approval_id'],
    ['flows', 'flows.id', 'approvals.flow_id'],
  ]),
  policy_versions: ownedPage('policy_versions', 'created_at', 'policies.organization_id', [['policies', 'policies.id', 'policy_versions.policy_id']]),
  verdicts: ownedPage('verdicts', 'created_at', 'verdicts.organization_id', []),
};

export const reads = { verifyChain };
export const writes = {};
