/**
 * Attestations: appended to trails (with their attachments and chain records), listed per trail,
 * and read back by artifact fingerprint or as the compliance facts of a page of trails.
 */
import { PostgresAdapter, sql } from 'kysely';
import { compiledOnce } from '../compiled-once.ts';
import { inListChunks, type Db } from '../database.ts';
import { fromJson } from '../json.ts';
import { inTransaction } from '../transactions.ts';
import { blobAddress, putBlobs } from './blobs.ts';
import { appendEvidenceBatch, byToken, digestColumnsOf } from './chain.ts';
import { findFlow } from './flows.ts';
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
const insertAttestationRowsOnce = compiledOnce((db, v: { rows: AttestationValues[] }) =>
  db
    .insertInto('attestations')
    .values(
      v.rows.map((r) => ({
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
      })),
    )
    .returning(digestColumnsOf('attestations')),
);
const touchTrail = compiledOnce((db, v: { id: number; at: number }) => db.updateTable('trails').set({ last_modified_at: v.at }).where('id', '=', v.id));

/** What tells stored attestation rows apart, but for their data (compared only between rows alike in all this). */
const rowKey = (r: {
  trail_id: unknown;
  name: unknown;
  type: unknown;
  artifact_fingerprint: unknown;
  attachment_sha256: unknown;
  attachment_name: unknown;
  compliant: unknown;
  created_by_token: unknown;
  created_at: unknown;
}) =>
  JSON.stringify([
    Number(r.trail_id),
    r.name,
    r.type,
    r.artifact_fingerprint,
    r.attachment_sha256,
    r.attachment_name,
    Number(r.compliant),
    r.created_by_token,
    Number(r.created_at),
  ]);

/**
 * Stores attestations on trails already found (one statement), then moves each trail's
 * `last_modified_at`, then appends their chain records: in that order, because on PostgreSQL the
 * trail rows stay locked until COMMIT from their update and the organisation from the append
 * (trails before organisation, each in id order: the order beginning a trail takes them too, so
 * no deadlock), and what locks nothing comes first so that concurrent transactions overlap up to there.
 */
async function insertAttestationRows(
  db: Db,
  list: Array<Omit<AttestationInsert, 'data' | 'where'> & { dataJson: string; where: { organizationId: number; flow: string; trail: string } }>,
): Promise<number[]> {
  if (!list.length) return [];
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
  for (const row of await insertAttestationRowsOnce(db, { rows: values })) {
    const key = rowKey(row);
    returned.set(key, [...(returned.get(key) ?? []), row]);
  }
  const rows = values.map((v) => {
    const alike =
      returned.get(
        rowKey({
          trail_id: v.trailId,
          name: v.name,
          type: v.type,
          artifact_fingerprint: v.artifactFingerprint,
          attachment_sha256: v.attachmentSha256,
          attachment_name: v.attachmentName,
          compliant: v.compliant,
          created_by_token: v.createdBy,
          created_at: v.at,
        }),
      ) ?? [];
    const index = alike.findIndex((row) => row.data === v.dataJson);
    if (index < 0) throw new Error('the attestation insert did not return every row');
    return alike.splice(index, 1)[0]!;
  });
  const touched = new Map<number, number>();
  for (const a of list) touched.set(a.trailId, Math.max(touched.get(a.trailId) ?? a.at, a.at));
  for (const [id, at] of [...touched].sort(([x], [y]) => x - y)) await touchTrail(db, { id, at });
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
  /** Stored content-addressed (once per content), named as the client sent it. */
  attachment: { content: Uint8Array; name: string } | null;
  compliant: boolean;
  /** The id of the token that stores it (null: stored without a caller). */
  createdBy: string | null;
  at: number;
}

/** The stored attestation, or which of flow and trail does not exist (nothing stored). */
export type AppendResult = { id: number; trailId: number } | { missing: 'flow' | 'trail' };

const trailIdOf = compiledOnce((db, v: { organizationId: number; flow: string; trail: string }) =>
  db
    .selectFrom('trails')
    .innerJoin('flows', 'flows.id', 'trails.flow_id')
    .select('trails.id')
    .where('flows.organization_id', '=', v.organizationId)
    .where('flows.name', '=', v.flow)
    .where('trails.name', '=', v.trail),
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
    const trails = new Map<string, Promise<AppendResult>>();
    const trailOf = (a: AttestationAppend) => {
      const key = JSON.stringify([a.organizationId, a.flow, a.trail]);
      let found = trails.get(key);
      if (!found) {
        found = (async (): Promise<AppendResult> => {
          const [trail] = await trailIdOf(trx, { organizationId: a.organizationId, flow: a.flow, trail: a.trail });
          if (trail) return { id: 0, trailId: Number(trail.id) };
          return { missing: (await findFlow(trx, a.organizationId, a.flow)) ? 'trail' : 'flow' };
        })();
        trails.set(key, found);
      }
      return found;
    };
    const results: AppendResult[] = [];
    for (const a of list) results.push(await trailOf(a));
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

/** One attestation that carries a fingerprint, and where it was made. */
export interface FingerprintAttestation {
  fingerprint: string;
  attestationId: number;
  trailId: number;
  trailName: string;
  flowName: string;
  repoName: string | null;
}

// CROSS JOIN keeps SQLite's order (attestations first, by the fingerprint index): with a list of
// 20 fingerprints and no statistics its planner walked every trail of the organisation instead,
// a cost that grew with the trails (PostgreSQL plans it as any join).
const fingerprintAttestations = compiledOnce((db, v: { organizationId: number; fingerprints: string[] }) =>
  db
    .selectFrom('attestations as a')
    .crossJoin('trails as t')
    .crossJoin('flows as f')
    .select(['a.id', 'a.artifact_fingerprint', 't.id as trail_id', 't.name as trail_name', 'f.name as flow_name', 't.repo_name'])
    .whereRef('t.id', '=', 'a.trail_id')
    .whereRef('f.id', '=', 't.flow_id')
    .where('f.organization_id', '=', v.organizationId)
    .where('a.artifact_fingerprint', 'in', v.fingerprints),
);

/** Every attestation in the organisation carrying one of `fingerprints`, latest first. */
export async function attestationsOfFingerprints(db: Db, organizationId: number, fingerprints: readonly string[]): Promise<FingerprintAttestation[]> {
  if (!fingerprints.length) return [];
  const out: FingerprintAttestation[] = [];
  for (const chunk of inListChunks(fingerprints)) {
    const rows = await fingerprintAttestations(db, { organizationId, fingerprints: chunk });
    for (const r of rows) {
      out.push({
        fingerprint: r.artifact_fingerprint!,
        attestationId: Number(r.id),
        trailId: Number(r.trail_id),
        trailName: r.trail_name,
        flowName: r.flow_name,
        repoName: r.repo_name,
      });
    }
  }
  return out.sort((a, b) => b.attestationId - a.attestationId);
}

/**
 * The name an artifact goes by, from the latest attestation in the organisation that carries its
 * fingerprint and names a target artifact (the template artifact it was attested as).
 */
export async function artifactNameOf(db: Db, organizationId: number, fingerprint: string): Promise<string | undefined> {
  const rows = await db
    .selectFrom('attestations as a')
    .innerJoin('trails as t', 't.id', 'a.trail_id')
    .innerJoin('flows as f', 'f.id', 't.flow_id')
    .select(['a.data'])
    .where('f.organization_id', '=', organizationId)
    .where('a.artifact_fingerprint', '=', fingerprint)
    .orderBy('a.id', 'desc')
    .limit(20)
    .execute();
  for (const r of rows) {
    const name = targetArtifactsOf(fromJson(r.data, {}))[0];
    if (name) return name;
  }
  return undefined;
}

/** The template artifact names an attestation's data attests for (`target_artifacts`, its strings); empty when it has none. */
export function targetArtifactsOf(data: unknown): string[] {
  const targets = (data as { target_artifacts?: unknown } | null)?.target_artifacts;
  return Array.isArray(targets) ? targets.filter((t): t is string => typeof t === 'string') : [];
}

/** What compliance needs to know of one stored attestation, and its trail. */
export interface AttestationFactsRow {
  trailId: number;
  id: number;
  name: string;
  type: string;
  compliant: boolean;
  targets: string[];
}

/**
 * The compliance facts of every attestation on these trails, oldest first: their data is read
 * only for `target_artifacts` (only where its text may name it), and nothing else of it leaves
 * the query. For lists, whose answers show each trail's compliance but not its attestations: on
 * SQLite this runs on a reader thread, so a trail of thousands of JUnit attestations costs the
 * event loop small rows, not every report's suites.
 */
export async function attestationFactsOfTrails(db: Db, trailIds: readonly number[]): Promise<AttestationFactsRow[]> {
  if (!trailIds.length) return [];
  const out: AttestationFactsRow[] = [];
  for (const chunk of inListChunks(trailIds)) {
    // The data is looked into only where its text names the key or has an escape (which could
    // spell it), and only `target_artifacts` leaves the database: other data (a JUnit report's
    // suites, a megabyte of user_data) is neither copied out nor parsed on the event loop.
    const named = sql`data like ${'%"target!_artifacts"%'} escape '!' or data like ${'%\\u%'} escape '!'`;
    const targets =
      db.getExecutor().adapter instanceof PostgresAdapter
        ? sql<string | null>`case when ${named} then (data::json -> 'target_artifacts')::text end`
        : sql<string | null>`case when ${named} then data -> '$.target_artifacts' end`;
    const rows = await db
      .selectFrom('attestations')
      .select(['id', 'trail_id', 'name', 'type', 'compliant'])
      .select(targets.as('targets'))
      .where('trail_id', 'in', chunk)
      .orderBy('id')
      .execute();
    for (const r of rows) {
      out.push({
        trailId: Number(r.trail_id),
        id: Number(r.id),
        name: r.name,
        type: r.type,
        compliant: Number(r.compliant) === 1,
        targets: r.targets === null ? [] : targetArtifactsOf({ target_artifacts: JSON.parse(r.targets) }),
      });
    }
  }
  return out.sort((a, b) => a.id - b.id);
}

/** The attachment of one attestation of a trail (none when the id is another trail's, or unknown). */
export async function attachmentOf(db: Db, trailId: number, attestationId: number): Promise<{ sha256: string | null; name: string | null } | undefined> {
  const row = await db
    .selectFrom('attestations')
    .select(['attachment_sha256', 'attachment_name'])
    .where('id', '=', attestationId)
    .where('trail_id', '=', trailId)
    .executeTakeFirst();
  return row && { sha256: row.attachment_sha256, name: row.attachment_name };
}

/** One suite of a JUnit attestation's `junit_results`. */
export interface JunitSuiteTotals {
  name: string;
  total: number;
  failures: number;
  errors: number;
  skipped: number;
  duration: number;
}

/** The `junit_results` of these attestations, by id: only that part of their data leaves the database. */
export async function junitResultsOf(db: Db, attestationIds: readonly number[]): Promise<Map<number, JunitSuiteTotals[]>> {
  const out = new Map<number, JunitSuiteTotals[]>();
  const results =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? sql<string | null>`(data::json -> 'junit_results')::text`
      : sql<string | null>`data -> '$.junit_results'`;
  for (const chunk of inListChunks(attestationIds)) {
    const rows = await db.selectFrom('attestations').select('id').select(results.as('results')).where('id', 'in', chunk).where('type', '=', 'junit').execute();
    for (const r of rows) {
      const parsed = fromJson<unknown>(r.results, []);
      out.set(Number(r.id), Array.isArray(parsed) ? (parsed as JunitSuiteTotals[]) : []);
    }
  }
  return out;
}

export const reads = { listAttestations, attestationsOfFingerprints, attestationFactsOfTrails, attachmentOf, artifactNameOf, junitResultsOf };
export const writes = { appendAttestation };
