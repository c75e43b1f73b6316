/** Trails: begun (created or updated) by CI runs, read back one by name or id, or a flow's page. */
import { compiledOnce } from '../compiled-once.ts';
import type { Db } from '../database.ts';
import { fromJson, toJson } from '../json.ts';
import { rowsOfIds } from '../rows-of-ids.ts';
import { inTransaction } from '../transactions.ts';
import { appendEvidence, byToken } from './chain.ts';
import { tokenRef, type TokenRef } from './provenance.ts';

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

/**
 * Creates the trail, or updates it when it exists already (a re-run CI job); says which.
 * `createdBy`: the id of the caller's token; a trail keeps the token that created it, and each
 * begin's chain record names the token that made it.
 */
export function upsertTrail(
  db: Db,
  flowId: number,
  input: TrailInput,
  templateSha256: string | null,
  at: number,
  createdBy: string | null,
): Promise<{ created: boolean; id: number }> {
  return inTransaction(db, async (trx) => {
    const result = await upsertTrailIn(trx, flowId, input, templateSha256, at, createdBy);
    // The trail row is a summary that each begin updates in place: each begin's record keeps what
    // it said and vouches for the row as it left it (verify checks the row against the latest one).
    const { organization_id, name: flow } = await trx
      .selectFrom('flows')
      .select(['organization_id', 'name'])
      .where('id', '=', flowId)
      .executeTakeFirstOrThrow();
    await appendEvidence(trx, {
      organizationId: Number(organization_id),
      type: 'trail.begin',
      at,
      ref: { table: 'trails', id: result.id },
      data: { flow, trail: input.name, created: result.created, input, template_sha256: templateSha256, ...byToken(createdBy) },
    });
    return result;
  });
}

async function upsertTrailIn(
  db: Db,
  flowId: number,
  input: TrailInput,
  templateSha256: string | null,
  at: number,
  createdBy: string | null,
): Promise<{ created: boolean; id: number }> {
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
  const inserted = await db
    .insertInto('trails')
    .values({
      ...values,
      flow_id: flowId,
      organization_id: db.selectFrom('flows').select('flows.organization_id').where('flows.id', '=', flowId),
      name: input.name,
      template_sha256: templateSha256,
      created_by_token: createdBy,
      created_at: at,
    })
    .onConflict((c) => c.columns(['flow_id', 'name']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { created: true, id: Number(inserted.id) };
  const existing = await db
    .selectFrom('trails')
    .select(['id', 'template_sha256'])
    .where('flow_id', '=', flowId)
    .where('name', '=', input.name)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('trails')
    .set({ ...values, template_sha256: templateSha256 ?? existing.template_sha256 })
    .where('id', '=', existing.id)
    .execute();
  return { created: false, id: Number(existing.id) };
}

/** A trail with the template it is evaluated against: its own, else its flow's. */
export interface TrailWithTemplate extends TrailRow {
  /** The trail's own template, else the flow's; null without either. */
  effectiveTemplateSha256: string | null;
}

export const trailColumns = [
  'trails.id',
  'trails.flow_id',
  'flows.name as flow_name',
  'trails.name',
  'trails.description',
  'trails.git_commit_info',
  'trails.repo_info',
  'trails.origin_url',
  'trails.external_urls',
  'trails.user_data',
  'trails.template_sha256',
  'flows.template_sha256 as flow_template_sha256',
  'trails.created_by_token',
  'tokens.description as token_description',
  'trails.created_at',
  'trails.last_modified_at',
] as const;

export type TrailSelect = {
  id: number;
  flow_id: number;
  flow_name: string;
  name: string;
  description: string;
  git_commit_info: string | null;
  repo_info: string | null;
  origin_url: string | null;
  external_urls: string | null;
  user_data: string | null;
  template_sha256: string | null;
  flow_template_sha256: string | null;
  created_by_token: string | null;
  token_description: string | null;
  created_at: number;
  last_modified_at: number;
};

/** Trails with their flow and the token that created them, for `trailColumns`. */
const trailsWithFlow = (db: Db) =>
  db.selectFrom('trails').innerJoin('flows', 'flows.id', 'trails.flow_id').leftJoin('tokens', 'tokens.id', 'trails.created_by_token');

export const toTrail = (r: TrailSelect): TrailWithTemplate => ({
  id: Number(r.id),
  flowId: Number(r.flow_id),
  flowName: r.flow_name,
  name: r.name,
  description: r.description,
  gitCommitInfo: fromJson(r.git_commit_info, null),
  repoInfo: fromJson(r.repo_info, null),
  originUrl: r.origin_url,
  externalUrls: fromJson(r.external_urls, null),
  userData: fromJson(r.user_data, null),
  templateSha256: r.template_sha256,
  effectiveTemplateSha256: r.template_sha256 ?? r.flow_template_sha256,
  createdBy: tokenRef(r.created_by_token, r.token_description),
  createdAt: Number(r.created_at),
  lastModifiedAt: Number(r.last_modified_at),
});

/** Trails a page reads in one statement: each may carry 1 MB of user_data (and 200 KB of external URLs). */
const trailsPerRead = 5;

/** The trails of `ids`, in that order, five a statement (see rows-of-ids.ts). */
const trailsOfIds = (db: Db, ids: readonly number[]) =>
  rowsOfIds(ids, trailsPerRead, (chunk) => trailsWithFlow(db).select(trailColumns).where('trails.id', 'in', chunk).execute(), toTrail);

/** A page's answer: the trails of the ids read, in that order, and how many there are in all. */
export const pageOfTrails = async (db: Db, total: number | string | bigint, rows: ReadonlyArray<{ id: number | string | bigint }>) => ({
  total: Number(total),
  items: await trailsOfIds(
    db,
    rows.map((r) => Number(r.id)),
  ),
});

// Kept on the rows by migration 0031's trigger: counting 100,000 trails cost more than the page.
const flowTrailCount = compiledOnce((db, v: { flowId: number }) => db.selectFrom('flows').select('trail_count as total').where('id', '=', v.flowId));
const organizationTrailCount = compiledOnce((db, v: { organizationId: number }) =>
  db.selectFrom('organizations').select('trail_count as total').where('id', '=', v.organizationId),
);

/** How many trails the flow has, or (without a flow) the organisation: the counts their rows keep. */
export async function trailCount(db: Db, scope: { flowId: number } | { organizationId: number }): Promise<number> {
  const [row] = 'flowId' in scope ? await flowTrailCount(db, scope) : await organizationTrailCount(db, scope);
  return Number(row?.total ?? 0);
}

/** A page of a flow's trails, newest first. */
export async function listTrailPage(db: Db, flowId: number, offset: number, limit: number): Promise<{ items: TrailWithTemplate[]; total: number }> {
  const total = await trailCount(db, { flowId });
  const rows = await db
    .selectFrom('trails')
    .select('trails.id')
    .where('trails.flow_id', '=', flowId)
    .orderBy('trails.created_at', 'desc')
    .orderBy('trails.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return pageOfTrails(db, total, rows);
}

/** What an organisation's trail list is narrowed to: one flow, trails with an attestation of one artifact, or both. */
export interface OrganizationTrailFilter {
  flowId?: number;
  /** Only trails of these flows (those with a tag); empty matches none. */
  flowIds?: readonly number[];
  fingerprint?: string;
}

/**
 * A page of an organisation's trails across its flows, newest first (ties by id, so pages do not
 * overlap). Read from `trails_org_created` (or `trails_flow_created` for one flow, which must be
 * the organisation's); a fingerprint narrows by the attestations that carry it.
 */
export async function listOrganizationTrailPage(
  db: Db,
  organizationId: number,
  filter: OrganizationTrailFilter,
  offset: number,
  limit: number,
): Promise<{ items: TrailWithTemplate[]; total: number }> {
  const { flowId, flowIds, fingerprint } = filter;
  if (flowIds && !flowIds.length) return { items: [], total: 0 };
  const withFingerprint = (fp: string) => db.selectFrom('attestations').select('attestations.trail_id').where('attestations.artifact_fingerprint', '=', fp);
  const total =
    fingerprint === undefined && flowIds === undefined
      ? await trailCount(db, flowId === undefined ? { organizationId } : { flowId })
      : (
          await db
            .selectFrom('trails')
            .select((eb) => eb.fn.countAll<number>().as('total'))
            .$if(flowId === undefined, (qb) => qb.where('trails.organization_id', '=', organizationId))
            .$if(flowId !== undefined, (qb) => qb.where('trails.flow_id', '=', flowId!))
            .$if(fingerprint !== undefined, (qb) => qb.where('trails.id', 'in', withFingerprint(fingerprint!)))
            .$if(flowIds !== undefined, (qb) => qb.where('trails.flow_id', 'in', [...flowIds!]))
            .executeTakeFirstOrThrow()
        ).total;
  const rows = await db
    .selectFrom('trails')
    .select('trails.id')
    // A flow is of one organisation: its own index then serves the page.
    .$if(flowId === undefined, (qb) => qb.where('trails.organization_id', '=', organizationId))
    .$if(flowId !== undefined, (qb) => qb.where('trails.flow_id', '=', flowId!))
    .$if(fingerprint !== undefined, (qb) => qb.where('trails.id', 'in', withFingerprint(fingerprint!)))
    .$if(flowIds !== undefined, (qb) => qb.where('trails.flow_id', 'in', [...flowIds!]))
    .orderBy('trails.created_at', 'desc')
    .orderBy('trails.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return pageOfTrails(db, total, rows);
}

/** A trail by organisation, flow and trail name, with its effective template. */
export async function findTrail(db: Db, organizationId: number, flowName: string, trailName: string): Promise<TrailWithTemplate | undefined> {
  const row = await trailsWithFlow(db)
    .select(trailColumns)
    .where('flows.organization_id', '=', organizationId)
    .where('flows.name', '=', flowName)
    .where('trails.name', '=', trailName)
    .executeTakeFirst();
  return row ? toTrail(row) : undefined;
}

/** One trail by id, with its effective template. */
export async function getTrailById(db: Db, trailId: number): Promise<TrailWithTemplate | undefined> {
  const row = await trailsWithFlow(db).select(trailColumns).where('trails.id', '=', trailId).executeTakeFirst();
  return row ? toTrail(row) : undefined;
}

export const reads = { findTrail, getTrailById, listTrailPage, listOrganizationTrailPage };
export const writes = { upsertTrail };
