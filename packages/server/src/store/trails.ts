import type { Db } from './database.ts';
import { appendEvidence, digestColumnsOf, inTransaction } from './chain.ts';
import { fromJson, toJson } from './json.ts';

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

/** Creates the trail, or updates it when it exists already (a re-run CI job); says which. */
export function upsertTrail(db: Db, flowId: number, input: TrailInput, templateSha256: string | null, at: number): Promise<{ created: boolean; id: number }> {
  return inTransaction(db, async (trx) => {
    const result = await upsertTrailIn(trx, flowId, input, templateSha256, at);
    // The trail row is a summary that each begin updates in place: each begin's record keeps what
    // it said and vouches for the row as it left it (verify checks the row against the latest one).
    const { organization_id, name: flow } = await trx.selectFrom('flows').select(['organization_id', 'name']).where('id', '=', flowId).executeTakeFirstOrThrow();
    await appendEvidence(trx, {
      organizationId: Number(organization_id), type: 'trail.begin', at, ref: { table: 'trails', id: result.id },
      data: { flow, trail: input.name, created: result.created, input, template_sha256: templateSha256 },
    });
    return result;
  });
}

async function upsertTrailIn(db: Db, flowId: number, input: TrailInput, templateSha256: string | null, at: number): Promise<{ created: boolean; id: number }> {
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
    .values({ ...values, flow_id: flowId, name: input.name, template_sha256: templateSha256, created_at: at })
    .onConflict((c) => c.columns(['flow_id', 'name']).doNothing())
    .returning('id').executeTakeFirst();
  if (inserted) return { created: true, id: Number(inserted.id) };
  const existing = await db.selectFrom('trails').select(['id', 'template_sha256']).where('flow_id', '=', flowId).where('name', '=', input.name).executeTakeFirstOrThrow();
  await db.updateTable('trails').set({ ...values, template_sha256: templateSha256 ?? existing.template_sha256 }).where('id', '=', existing.id).execute();
  return { created: false, id: Number(existing.id) };
}

export async function findTrail(db: Db, organizationId: number, flowName: string, trailName: string): Promise<TrailRow | undefined> {
  const r = await db.selectFrom('trails').innerJoin('flows', 'flows.id', 'trails.flow_id')
    .select([
      'trails.id', 'trails.flow_id', 'flows.name as flow_name', 'trails.name', 'trails.description', 'trails.git_commit_info', 'trails.repo_info',
      'trails.origin_url', 'trails.external_urls', 'trails.user_data', 'trails.template_sha256', 'trails.created_at', 'trails.last_modified_at',
    ])
    .where('flows.organization_id', '=', organizationId).where('flows.name', '=', flowName).where('trails.name', '=', trailName)
    .executeTakeFirst();
  if (!r) return undefined;
  return {
    id: Number(r.id), flowId: Number(r.flow_id), flowName: r.flow_name, name: r.name, description: r.description,
    gitCommitInfo: fromJson(r.git_commit_info, null), repoInfo: fromJson(r.repo_info, null), originUrl: r.origin_url,
    externalUrls: fromJson(r.external_urls, null), userData: fromJson(r.user_data, null), templateSha256: r.template_sha256,
    createdAt: Number(r.created_at), lastModifiedAt: Number(r.last_modified_at),
  };
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
  at: number;
  /** Where the trail is, when the caller has looked it up already (names never change); read otherwise. */
  where?: { organizationId: number; flow: string; trail: string };
}

export interface AttestationRow extends Omit<AttestationInsert, 'at' | 'where'> {
  id: number;
  createdAt: number;
  attachmentSize: number | null;
}

/** Stores an attestation and its chain record in one transaction. */
export function insertAttestation(db: Db, a: AttestationInsert): Promise<number> {
  return inTransaction(db, (trx) => insertAttestationIn(trx, a));
}

async function insertAttestationIn(db: Db, a: AttestationInsert): Promise<number> {
  // The chain append locks the organisation until COMMIT on PostgreSQL: everything that does not
  // need the chain comes first, so that concurrent attestations overlap up to the append.
  const row = await db.insertInto('attestations').values({
    trail_id: a.trailId, name: a.name, type: a.type, data: JSON.stringify(a.data), artifact_fingerprint: a.artifactFingerprint,
    attachment_sha256: a.attachmentSha256, attachment_name: a.attachmentName, compliant: a.compliant ? 1 : 0, created_at: a.at,
  }).returning(digestColumnsOf('attestations')).executeTakeFirstOrThrow();
  const where = a.where ?? await db.selectFrom('trails').innerJoin('flows', 'flows.id', 'trails.flow_id')
    .select(['flows.organization_id as organizationId', 'flows.name as flow', 'trails.name as trail']).where('trails.id', '=', a.trailId).executeTakeFirstOrThrow();
  // Locks the trail row until COMMIT, so it comes last before the chain; trail then organisation,
  // the order in which beginning a trail takes them too (no deadlock between the two).
  await db.updateTable('trails').set({ last_modified_at: a.at }).where('id', '=', a.trailId).execute();
  await appendEvidence(db, {
    organizationId: Number(where.organizationId), type: 'attestation', at: a.at, ref: { table: 'attestations', id: Number(row.id) }, row,
    data: { flow: where.flow, trail: where.trail, name: a.name, type: a.type, artifact_fingerprint: a.artifactFingerprint, attachment_sha256: a.attachmentSha256 },
  });
  return Number(row.id);
}

/** Every attestation of a trail, oldest first (later ones with the same name supersede earlier ones). */
export async function listAttestations(db: Db, trailId: number): Promise<AttestationRow[]> {
  const rows = await db.selectFrom('attestations').leftJoin('blobs', 'blobs.sha256', 'attestations.attachment_sha256')
    .select([
      'attestations.id', 'attestations.trail_id', 'attestations.name', 'attestations.type', 'attestations.data', 'attestations.artifact_fingerprint',
      'attestations.attachment_sha256', 'attestations.attachment_name', 'attestations.compliant', 'attestations.created_at', 'blobs.size',
    ])
    .where('attestations.trail_id', '=', trailId).orderBy('attestations.id').execute();
  return rows.map((r) => ({
    id: Number(r.id), trailId: Number(r.trail_id), name: r.name, type: r.type, data: JSON.parse(r.data), artifactFingerprint: r.artifact_fingerprint,
    attachmentSha256: r.attachment_sha256, attachmentName: r.attachment_name, compliant: Number(r.compliant) === 1, createdAt: Number(r.created_at),
    attachmentSize: r.size === null ? null : Number(r.size),
  }));
}
