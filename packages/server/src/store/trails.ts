import type { Db } from './database.ts';
import { appendEvidence, appendEvidenceBatch, byToken, digestColumnsOf, inTransaction } from './chain.ts';
import { toJson } from './json.ts';
import { blobAddress, putBlobs } from './organizations.ts';
import { compiledOnce } from './compiled-once.ts';
import { tokenRef, type TokenRef } from './provenance.ts';

export interface FlowRow { id: number; name: string; description: string; visibility: string; templateSha256: string | null; createdAt: number; lastModifiedAt: number }

export interface TrailInput {
  name: string;
  description?: string | null;
  git_commit_info?: { sha1: string; [key: string]: unknown } | null;
  repo_info?: { name: string; [key: string]: unknown } | null;
  origin_url?: string | null;
  external_urls?: Record<string, unknown> | null;
  user_data?: unknown;
}

export interface TrailRow {
  id: number;
  flowId: number;
  flowName: string;
  name: string;
  description: string;
  gitCommitInfo: Record<string, unknown> | null;
  repoInfo: Record<string, unknown> | null;
  originUrl: string | null;
  externalUrls: Record<string, unknown> | null;
  userData: unknown;
  templateSha256: string | null;
  /** The token that created it; null for trails begun before migration 0014. */
  createdBy: TokenRef | null;
  createdAt: number;
  lastModifiedAt: number;
}


const flowColumns = ['id', 'name', 'description', 'visibility', 'template_sha256', 'created_at', 'last_modified_at'] as const;
type FlowSelect = { id: number; name: string; description: string; visibility: string; template_sha256: string | null; created_at: number; last_modified_at: number };
const toFlowRow = (r: FlowSelect): FlowRow => ({
  id: Number(r.id), name: r.name, description: r.description, visibility: r.visibility, templateSha256: r.template_sha256,
  createdAt: Number(r.created_at), lastModifiedAt: Number(r.last_modified_at),
});

export async function findFlow(db: Db, organizationId: number, name: string): Promise<FlowRow | undefined> {
  const row = await db.selectFrom('flows').select(flowColumns).where('organization_id', '=', organizationId).where('name', '=', name).executeTakeFirst();
  return row ? toFlowRow(row) : undefined;
}

/** Finds the flow, creating it (private, no template) when it does not exist yet. */
export async function ensureFlow(db: Db, organizationId: number, name: string, at: number): Promise<FlowRow> {
  await db.insertInto('flows').values({
    organization_id: organizationId, name, description: '', visibility: 'private', template_sha256: null, created_at: at, last_modified_at: at,
  }).onConflict((c) => c.columns(['organization_id', 'name']).doNothing()).execute();
  return (await findFlow(db, organizationId, name))!;
}

/**
 * Creates the trail, or updates it when it exists already (a re-run CI job); says which.
 * `createdBy`: the id of the caller's token; a trail keeps the token that created it, and each
 * begin's chain record names the token that made it.
 */
export function upsertTrail(db: Db, flowId: number, input: TrailInput, templateSha256: string | null, at: number, createdBy: string | null): Promise<{ created: boolean; id: number }> {
  return inTransaction(db, async (trx) => {
    const result = await upsertTrailIn(trx, flowId, input, templateSha256, at, createdBy);
    // The trail row is a summary that each begin updates in place: each begin's record keeps what
    // it said and vouches for the row as it left it (verify checks the row against the latest one).
    const { organization_id, name: flow } = await trx.selectFrom('flows').select(['organization_id', 'name']).where('id', '=', flowId).executeTakeFirstOrThrow();
    await appendEvidence(trx, {
      organizationId: Number(organization_id), type: 'trail.begin', at, ref: { table: 'trails', id: result.id },
      data: { flow, trail: input.name, created: result.created, input, template_sha256: templateSha256, ...byToken(createdBy) },
    });
    return result;
  });
}

async function upsertTrailIn(db: Db, flowId: number, input: TrailInput, templateSha256: string | null, at: number, createdBy: string | null): Promise<{ created: boolean; id: number }> {
  const values = {
    description: input.description ?? '',
    commit_sha: input.git_commit_info?.sha1 ?? null,
    repo_name: input.repo_info?.name ?? null,
    git_commit_info: toJson(input.git_commit_info),
    repo_info: toJson(input.repo_info),
    origin_url: input.origin_url ?? null,
    external_urls: toJson(input.external_urls),
    user_data: toJson(input.user_data),
    last_modified_at: at,
  };
  // Insert-or-nothing first, so that two processes beginning the same new trail at once do not
  // collide: the loser finds the winner's row (PostgreSQL waits for its commit) and updates it.
  const inserted = await db.insertInto('trails')
    .values({ ...values, flow_id: flowId, name: input.name, template_sha256: templateSha256, created_by_token: createdBy, created_at: at })
    .onConflict((c) => c.columns(['flow_id', 'name']).doNothing())
    .returning('id').executeTakeFirst();
  if (inserted) return { created: true, id: Number(inserted.id) };
  const existing = await db.selectFrom('trails').select(['id', 'template_sha256']).where('flow_id', '=', flowId).where('name', '=', input.name).executeTakeFirstOrThrow();
  await db.updateTable('trails').set({ ...values, template_sha256: templateSha256 ?? existing.template_sha256 }).where('id', '=', existing.id).execute();
  return { created: false, id: Number(existing.id) };
}

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
const insertAttestationRowsOnce = compiledOnce((db, v: { rows: AttestationValues[] }) => db.insertInto('attestations').values(v.rows.map((r) => ({
  trail_id: r.trailId, name: r.name, type: r.type, data: r.dataJson, artifact_fingerprint: r.artifactFingerprint,
  attachment_sha256: r.attachmentSha256, attachment_name: r.attachmentName, compliant: r.compliant, created_by_token: r.createdBy, created_at: r.at,
}))).returning(digestColumnsOf('attestations')));
const touchTrail = compiledOnce((db, v: { id: number; at: number }) => db.updateTable('trails').set({ last_modified_at: v.at }).where('id', '=', v.id));

/** What tells stored attestation rows apart, but for their data (compared only between rows alike in all this). */
const rowKey = (r: { trail_id: unknown; name: unknown; type: unknown; artifact_fingerprint: unknown; attachment_sha256: unknown; attachment_name: unknown; compliant: unknown; created_by_token: unknown; created_at: unknown }) =>
  JSON.stringify([Number(r.trail_id), r.name, r.type, r.artifact_fingerprint, r.attachment_sha256, r.attachment_name, Number(r.compliant), r.created_by_token, Number(r.created_at)]);

/**
 * Stores attestations on trails already found (one statement), then moves each trail's
 * `last_modified_at`, then appends their chain records: in that order, because on PostgreSQL the
 * trail rows stay locked until COMMIT from their update and the organisation from the append
 * (trails before organisation, each in id order: the order beginning a trail takes them too, so
 * no deadlock), and what locks nothing comes first so that concurrent transactions overlap up to there.
 */
async function insertAttestationRows(db: Db, list: Array<Omit<AttestationInsert, 'data' | 'where'> & { dataJson: string; where: { organizationId: number; flow: string; trail: string } }>): Promise<number[]> {
  if (!list.length) return [];
  const values = list.map((a): AttestationValues => ({
    trailId: a.trailId, name: a.name, type: a.type, dataJson: a.dataJson, artifactFingerprint: a.artifactFingerprint,
    attachmentSha256: a.attachmentSha256, attachmentName: a.attachmentName, compliant: a.compliant ? 1 : 0, createdBy: a.createdBy, at: a.at,
  }));
  // RETURNING gives the rows, not which input each came from: they are matched by content
  // (rows alike in every column are interchangeable).
  const returned = new Map<string, Array<Record<string, unknown> & { id: number }>>();
  for (const row of await insertAttestationRowsOnce(db, { rows: values })) {
    const key = rowKey(row);
    returned.set(key, [...(returned.get(key) ?? []), row]);
  }
  const rows = values.map((v) => {
    const alike = returned.get(rowKey({
      trail_id: v.trailId, name: v.name, type: v.type, artifact_fingerprint: v.artifactFingerprint,
      attachment_sha256: v.attachmentSha256, attachment_name: v.attachmentName, compliant: v.compliant, created_by_token: v.createdBy, created_at: v.at,
    })) ?? [];
    const index = alike.findIndex((row) => row.data === v.dataJson);
    if (index < 0) throw new Error('the attestation insert did not return every row');
    return alike.splice(index, 1)[0]!;
  });
  const touched = new Map<number, number>();
  for (const a of list) touched.set(a.trailId, Math.max(touched.get(a.trailId) ?? a.at, a.at));
  for (const [id, at] of [...touched].sort(([x], [y]) => x - y)) await touchTrail(db, { id, at });
  await appendEvidenceBatch(db, list.map((a, i) => ({
    organizationId: a.where.organizationId, type: 'attestation', at: a.at, ref: { table: 'attestations', id: Number(rows[i]!.id) }, row: rows[i],
    data: {
      flow: a.where.flow, trail: a.where.trail, name: a.name, type: a.type, artifact_fingerprint: a.artifactFingerprint, attachment_sha256: a.attachmentSha256,
      ...byToken(a.createdBy),
    },
  })));
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
  db.selectFrom('trails').innerJoin('flows', 'flows.id', 'trails.flow_id').select('trails.id')
    .where('flows.organization_id', '=', v.organizationId).where('flows.name', '=', v.flow).where('trails.name', '=', v.trail));

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
    await putBlobs(trx, found.flatMap(({ a, attachmentSha256 }) => (a.attachment ? [{ sha256: attachmentSha256!, content: a.attachment.content, at: a.at }] : [])));
    const ids = await insertAttestationRows(trx, found.map(({ trailId, a, attachmentSha256 }) => ({
      trailId, name: a.name, type: a.type, dataJson: a.dataJson, artifactFingerprint: a.artifactFingerprint, attachmentSha256,
      attachmentName: a.attachment?.name ?? null, compliant: a.compliant, createdBy: a.createdBy, at: a.at, where: { organizationId: a.organizationId, flow: a.flow, trail: a.trail },
    })));
    found.forEach(({ index, trailId }, i) => (results[index] = { id: ids[i]!, trailId }));
    return results;
  });
}

/** The attestations' columns an `AttestationRow` is made of (with `attestationRowOf`), its attachment's size and token joined. */
export const attestationRowsQuery = (db: Db) => db.selectFrom('attestations').leftJoin('blobs', 'blobs.sha256', 'attestations.attachment_sha256')
  .leftJoin('tokens', 'tokens.id', 'attestations.created_by_token')
  .select([
    'attestations.id', 'attestations.trail_id', 'attestations.name', 'attestations.type', 'attestations.data', 'attestations.artifact_fingerprint',
    'attestations.attachment_sha256', 'attestations.attachment_name', 'attestations.compliant', 'attestations.created_by_token',
    'tokens.description as token_description', 'attestations.created_at', 'blobs.size',
  ]);

type AttestationSelect = Awaited<ReturnType<ReturnType<typeof attestationRowsQuery>['execute']>>[number];

export const attestationRowOf = (r: AttestationSelect): AttestationRow => ({
  id: Number(r.id), trailId: Number(r.trail_id), name: r.name, type: r.type, data: JSON.parse(r.data), artifactFingerprint: r.artifact_fingerprint,
  attachmentSha256: r.attachment_sha256, attachmentName: r.attachment_name, compliant: Number(r.compliant) === 1,
  createdBy: tokenRef(r.created_by_token, r.token_description), createdAt: Number(r.created_at),
  attachmentSize: r.size === null ? null : Number(r.size),
});

/** The attestations of a trail, oldest first (later ones with the same name supersede earlier ones): all of them, or a page. */
export async function listAttestations(db: Db, trailId: number, page?: { offset: number; limit: number }): Promise<AttestationRow[]> {
  const rows = await attestationRowsQuery(db).where('attestations.trail_id', '=', trailId).orderBy('attestations.id')
    .$if(page !== undefined, (q) => q.limit(page!.limit).offset(page!.offset)).execute();
  return rows.map(attestationRowOf);
}
