/**
 * Attestations: appended to trails (with their attachments and chain records) and listed per
 * trail as whole rows. What else is read of them (by fingerprint, the compliance facts of trails,
 * JUnit totals) is in attestation-facts.ts.
 */
import { sql } from 'kysely';
import { compiledOnce } from '../compiled-once.ts';
import { insertChunks, isSqlite, type Db } from '../database.ts';
import { inTransaction } from '../transactions.ts';
import { blobAddress, putBlobs } from './blobs.ts';
import { appendEvidenceBatch, byToken, type digestColumns, digestColumnsOf } from './chain.ts';
import { trailForEvidence } from './evidence-trails.ts';
import { tokenRef, type TokenRef } from './provenance.ts';

export interface AttestationInsert {
  trailId: number;
  name: string;
  type: string;
  data: unknown;
  artifactFingerprint: string | null;
  attachmentSha256: string | null;
  attachmentName: string | null;
  compliant: boolean;
  /** The id of the token that stored it (null: stored without a caller). */
  createdBy: string | null;
  at: number;
  /** Where the trail is, when the caller has looked it up already (names never change); read otherwise. */
  where?: { organizationId: number; flow: string; trail: string };
}

export interface AttestationRow extends Omit<AttestationInsert, 'at' | 'where' | 'createdBy'> {
  id: number;
  /** The token that stored it; null for attestations stored before migration 0014. */
  createdBy: TokenRef | null;
  createdAt: number;
  attachmentSize: number | null;
}

type AttestationValues = Omit<AttestationInsert, 'data' | 'where' | 'compliant'> & { dataJson: string; compliant: number };
/** An attestation's row as inserted, column by column. */
const columnsOf = (r: AttestationValues) => ({
  trail_id: r.trailId,
  name: r.name,
  type: r.type,
  data: r.dataJson,
  artifact_fingerprint: r.artifactFingerprint,
  attachment_sha256: r.attachmentSha256,
  attachment_name: r.attachmentName,
  compliant: r.compliant,
  created_by_token: r.createdBy,
  created_at: r.at,
});
const insertAttestationRowsOnce = compiledOnce((db, v: { rows: AttestationValues[] }) =>
  db.insertInto('attestations').values(v.rows.map(columnsOf)).returning(digestColumnsOf('attestations')),
);
/** A trail's `last_modified_at`; with `lock`, its row locked until COMMIT (as the update that follows would lock it). */
const lockTrail = compiledOnce((db, v: { id: number }, o: { lock: boolean }) => {
  const query = db.selectFrom('trails').select('last_modified_at').where('id', '=', v.id);
  return o.lock ? query.forNoKeyUpdate() : query;
});
const touchTrail = compiledOnce((db, v: { id: number; at: number }) => db.updateTable('trails').set({ last_modified_at: v.at }).where('id', '=', v.id));

/** What tells stored attestation rows apart but for their data: every column the chain digests but `id` and `data` (rows alike in all of them are compared by data). */
type KeyColumn = Exclude<(typeof digestColumns.attestations)[number], 'id' | 'data'>;
const keyColumns = digestColumnsOf('attestations').filter((c): c is KeyColumn => c !== 'id' && c !== 'data');
// A column inserted but not digested (so not in the key) fails the type check here.
const keyIsComplete: Exclude<keyof ReturnType<typeof columnsOf>, 'data' | KeyColumn> extends never ? true : never = true;
void keyIsComplete;
/** Columns PostgreSQL may answer as strings (bigint). */
const numericColumns: ReadonlySet<string> = new Set(['trail_id', 'compliant', 'created_at']);
const rowKey = (r: Record<KeyColumn, unknown>) => JSON.stringify(keyColumns.map((c) => (numericColumns.has(c) ? Number(r[c]) : r[c])));

/**
 * Stores attestations on trails already found: locks each trail's row (PostgreSQL, until COMMIT),
 * inserts the rows (one statement per 500), moves the trails' `last_modified_at`, then appends
 * their chain records. Trails before organisation, each in id order (the order beginning a trail
 * takes them too, so no deadlock). The trail is locked before its attestations draw their ids,
 * so that within a trail id order is commit order (and chain order), and an attestation's
 * `created_at` is never before the trail's `last_modified_at`: the three orders agree, and
 * `is_latest` (the highest id of a name) is the one stored last.
 */
async function insertAttestationRows(
  db: Db,
  unordered: Array<Omit<AttestationInsert, 'data' | 'where'> & { dataJson: string; where: { organizationId: number; flow: string; trail: string } }>,
): Promise<number[]> {
  if (!unordered.length) return [];
  const since = new Map<number, number>();
  for (const id of [...new Set(unordered.map((a) => a.trailId))].sort((x, y) => x - y)) {
    const [trail] = await lockTrail(db, { id }, { lock: !isSqlite(db) });
    since.set(id, Number(trail?.last_modified_at ?? 0));
  }
  // In the order given, each attestation's time is at least its trail's latest (the rows' ids follow that order).
  const list = unordered.map((a) => {
    const at = Math.max(a.at, since.get(a.trailId)!);
    since.set(a.trailId, at);
    return { ...a, at };
  });
  const values = list.map(
    (a): AttestationValues => ({
      trailId: a.trailId,
      name: a.name,
      type: a.type,
      dataJson: a.dataJson,
      artifactFingerprint: a.artifactFingerprint,
      attachmentSha256: a.attachmentSha256,
      attachmentName: a.attachmentName,
      compliant: a.compliant ? 1 : 0,
      createdBy: a.createdBy,
      at: a.at,
    }),
  );
  // RETURNING gives the rows, not which input each came from: they are matched by content
  // (rows alike in every column are interchangeable).
  const returned = new Map<string, Array<Record<string, unknown> & { id: number }>>();
  for (const chunk of insertChunks(values)) {
    for (const row of await insertAttestationRowsOnce(db, { rows: chunk })) {
      const key = rowKey(row);
      returned.set(key, [...(returned.get(key) ?? []), row]);
    }
  }
  const rows = values.map((v) => {
    const alike = returned.get(rowKey(columnsOf(v))) ?? [];
    const index = alike.findIndex((row) => row.data === v.dataJson);
    if (index < 0) throw new Error('the attestation insert did not return every row');
    return alike.splice(index, 1)[0]!;
  });
  for (const [id, at] of [...since].sort(([x], [y]) => x - y)) await touchTrail(db, { id, at });
  await appendEvidenceBatch(
    db,
    list.map((a, i) => ({
      organizationId: a.where.organizationId,
      type: 'attestation',
      at: a.at,
      ref: { table: 'attestations', id: Number(rows[i]!.id) },
      row: rows[i],
      data: {
        flow: a.where.flow,
        trail: a.where.trail,
        name: a.name,
        type: a.type,
        artifact_fingerprint: a.artifactFingerprint,
        attachment_sha256: a.attachmentSha256,
        ...byToken(a.createdBy),
      },
    })),
  );
  return rows.map((row) => Number(row.id));
}

/** An attestation to store on a trail named by its organisation, flow and trail names. */
export interface AttestationAppend {
  organizationId: number;
  flow: string;
  trail: string;
  name: string;
  type: string;
  /** The attestation's data as the JSON text to store. */
  dataJson: string;
  artifactFingerprint: string | null;
  /**
   * It names no template artifact, only `artifactFingerprint`: on a trail evaluated against a
   * template that has no artifact with that fingerprint it is refused (`missing: 'artifact'`), as Kosli refuses it.
   */
  needsArtifact?: boolean;
  /** Stored content-addressed (once per content), named as the client sent it. */
  attachment: { content: Uint8Array; name: string } | null;
  compliant: boolean;
  /** The id of the token that stores it (null: stored without a caller). */
  createdBy: string | null;
  at: number;
}

/** The stored attestation, or which of flow, trail and the artifact it names does not exist (nothing stored). */
export type AppendResult = { id: number; trailId: number } | { missing: 'flow' | 'trail' | 'artifact' };

const artifactOnTrail = compiledOnce((db, v: { trailId: number; fingerprint: string }) =>
  db.selectFrom('artifacts').select('id').where('trail_id', '=', v.trailId).where('fingerprint', '=', v.fingerprint),
);

/**
 * Finds the trail and stores the attestation, its attachment and its chain record, in one
 * transaction. Takes and returns plain values only, so that it can run on SQLite's writer thread.
 */
export async function appendAttestation(db: Db, a: AttestationAppend): Promise<AppendResult> {
  return (await appendAttestations(db, [a]))[0]!;
}

/**
 * `appendAttestation` for several, in one transaction, with one chain append per organisation
 * (the batches of `batchedWrites`, on both backends). A missing trail fails only its own attestation.
 */
export function appendAttestations(db: Db, list: AttestationAppend[]): Promise<AppendResult[]> {
  return inTransaction(db, async (trx) => {
    // Each statement below serves the whole list: a batch costs a few round trips, not a few per attestation.
    const trails = new Map<string, ReturnType<typeof trailForEvidence>>();
    const trailOf = (a: AttestationAppend) => {
      const key = JSON.stringify([a.organizationId, a.flow, a.trail]);
      let found = trails.get(key);
      if (!found) {
        found = trailForEvidence(trx, { organizationId: a.organizationId, flow: a.flow, trail: a.trail });
        trails.set(key, found);
      }
      return found;
    };
    const results: AppendResult[] = [];
    for (const a of list) {
      const trail = await trailOf(a);
      if ('missing' in trail) results.push(trail);
      else if (a.needsArtifact && trail.templated && !(await artifactOnTrail(trx, { trailId: trail.id, fingerprint: a.artifactFingerprint! })).length)
        results.push({ missing: 'artifact' });
      else results.push({ id: 0, trailId: trail.id });
    }
    const found = list.flatMap((a, index) => {
      const result = results[index]!;
      return 'missing' in result ? [] : [{ index, trailId: result.trailId, a, attachmentSha256: a.attachment ? blobAddress(a.attachment.content) : null }];
    });
    await putBlobs(
      trx,
      found.flatMap(({ a, attachmentSha256 }) => (a.attachment ? [{ sha256: attachmentSha256!, content: a.attachment.content, at: a.at }] : [])),
    );
    const ids = await insertAttestationRows(
      trx,
      found.map(({ trailId, a, attachmentSha256 }) => ({
        trailId,
        name: a.name,
        type: a.type,
        dataJson: a.dataJson,
        artifactFingerprint: a.artifactFingerprint,
        attachmentSha256,
        attachmentName: a.attachment?.name ?? null,
        compliant: a.compliant,
        createdBy: a.createdBy,
        at: a.at,
        where: { organizationId: a.organizationId, flow: a.flow, trail: a.trail },
      })),
    );
    found.forEach(({ index, trailId }, i) => (results[index] = { id: ids[i]!, trailId }));
    return results;
  });
}

/** The attestations' columns an `AttestationRow` is made of (with `attestationRowOf`), its attachment's size and token joined. */
export const attestationRowsQuery = (db: Db) =>
  db
    .selectFrom('attestations')
    .leftJoin('blobs', 'blobs.sha256', 'attestations.attachment_sha256')
    .leftJoin('tokens', 'tokens.id', 'attestations.created_by_token')
    .select([
      'attestations.id',
      'attestations.trail_id',
      'attestations.name',
      'attestations.type',
      'attestations.data',
      'attestations.artifact_fingerprint',
      'attestations.attachment_sha256',
      'attestations.attachment_name',
      'attestations.compliant',
      'attestations.created_by_token',
      'tokens.description as token_description',
      'attestations.created_at',
      'blobs.size',
    ]);

type AttestationSelect = Awaited<ReturnType<ReturnType<typeof attestationRowsQuery>['execute']>>[number];

export const attestationRowOf = (r: AttestationSelect): AttestationRow => ({
  id: Number(r.id),
  trailId: Number(r.trail_id),
  name: r.name,
  type: r.type,
  data: JSON.parse(r.data),
  artifactFingerprint: r.artifact_fingerprint,
  attachmentSha256: r.attachment_sha256,
  attachmentName: r.attachment_name,
  compliant: Number(r.compliant) === 1,
  createdBy: tokenRef(r.created_by_token, r.token_description),
  createdAt: Number(r.created_at),
  attachmentSize: r.size === null ? null : Number(r.size),
});

/** The attestations of a trail, oldest first (later ones with the same name supersede earlier ones): all of them, or a page. */
export async function listAttestations(db: Db, trailId: number, page?: { offset: number; limit: number }): Promise<AttestationRow[]> {
  const rows = await attestationRowsQuery(db)
    .where('attestations.trail_id', '=', trailId)
    .orderBy('attestations.id')
    .$if(page !== undefined, (q) => q.limit(page!.limit).offset(page!.offset))
    .execute();
  return rows.map(attestationRowOf);
}

/**
 * The size in bytes of the data of each attestation a page would hold, in the page's order: how a
 * read bounds its answer by bytes before it reads any data (octet_length reads no text).
 */
export async function attestationDataSizes(
  db: Db,
  trailId: number,
  page: { offset: number; limit: number; name?: string; newestFirst?: boolean },
): Promise<number[]> {
  const rows = await db
    .selectFrom('attestations')
    .select(sql<number | string>`octet_length(data)`.as('bytes'))
    .where('trail_id', '=', trailId)
    .$if(page.name !== undefined, (q) => q.where('name', '=', page.name!))
    .orderBy('id', page.newestFirst ? 'desc' : 'asc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((r) => Number(r.bytes));
}

export const reads = { listAttestations, attestationDataSizes };
export const writes = { appendAttestation };
