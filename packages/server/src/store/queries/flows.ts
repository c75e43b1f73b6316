/** Flows: created on a trail's first begin (`ensureFlow`) or by PUT /flows, found by name, listed and read back. */
import { sql } from 'kysely';
import { isSqlite, type Db } from '../database.ts';
import { toTrail, trailColumns, type TrailSelect, type TrailWithTemplate } from './trails.ts';

export interface FlowRow {
  id: number;
  name: string;
  description: string;
  visibility: string;
  templateSha256: string | null;
  createdAt: number;
  lastModifiedAt: number;
}

const flowColumns = ['id', 'name', 'description', 'visibility', 'template_sha256', 'created_at', 'last_modified_at'] as const;
type FlowSelect = {
  id: number;
  name: string;
  description: string;
  visibility: string;
  template_sha256: string | null;
  created_at: number;
  last_modified_at: number;
};
const toFlowRow = (r: FlowSelect): FlowRow => ({
  id: Number(r.id),
  name: r.name,
  description: r.description,
  visibility: r.visibility,
  templateSha256: r.template_sha256,
  createdAt: Number(r.created_at),
  lastModifiedAt: Number(r.last_modified_at),
});

export async function findFlow(db: Db, organizationId: number, name: string): Promise<FlowRow | undefined> {
  const row = await db.selectFrom('flows').select(flowColumns).where('organization_id', '=', organizationId).where('name', '=', name).executeTakeFirst();
  return row ? toFlowRow(row) : undefined;
}

/** Finds the flow, creating it (private, no template) when it does not exist yet. */
export async function ensureFlow(db: Db, organizationId: number, name: string, at: number): Promise<FlowRow> {
  await db
    .insertInto('flows')
    .values({
      organization_id: organizationId,
      name,
      description: '',
      visibility: 'private',
      template_sha256: null,
      created_at: at,
      last_modified_at: at,
    })
    .onConflict((c) => c.columns(['organization_id', 'name']).doNothing())
    .execute();
  return (await findFlow(db, organizationId, name))!;
}

export interface FlowRecord {
  id: number;
  name: string;
  description: string;
  visibility: string;
  templateSha256: string | null;
  repoUrl: string | null;
  /** Set by PATCH /tags (migration 0024). */
  tags: Record<string, string>;
  createdAt: number;
  lastModifiedAt: number;
}

/** What PUT /flows changes; `undefined` keeps the current value (or the default on create). */
export interface FlowChanges {
  description?: string;
  visibility?: string;
  repoUrl?: string | null;
  /** SHA-256 of the template blob; `null` removes the template. */
  templateSha256?: string | null;
}

const columns = ['id', 'name', 'description', 'visibility', 'template_sha256', 'repo_url', 'tags', 'created_at', 'last_modified_at'] as const;
type Row = {
  id: number;
  name: string;
  description: string;
  visibility: string;
  template_sha256: string | null;
  repo_url: string | null;
  tags: string;
  created_at: number;
  last_modified_at: number;
};
const toRecord = (r: Row): FlowRecord => ({
  id: Number(r.id),
  name: r.name,
  description: r.description,
  visibility: r.visibility,
  templateSha256: r.template_sha256,
  repoUrl: r.repo_url,
  tags: JSON.parse(r.tags),
  createdAt: Number(r.created_at),
  lastModifiedAt: Number(r.last_modified_at),
});

/**
 * Creates the flow or updates the fields given; says which. Insert-or-nothing first, so that two
 * requests creating the same flow at once do not collide: the loser updates the winner's row.
 */
export async function upsertFlow(
  db: Db,
  organizationId: number,
  name: string,
  changes: FlowChanges,
  at: number,
): Promise<{ created: boolean; flow: FlowRecord }> {
  const inserted = await db
    .insertInto('flows')
    .values({
      organization_id: organizationId,
      name,
      description: changes.description ?? '',
      visibility: changes.visibility ?? 'private',
      template_sha256: changes.templateSha256 ?? null,
      repo_url: changes.repoUrl ?? null,
      created_at: at,
      last_modified_at: at,
    })
    .onConflict((c) => c.columns(['organization_id', 'name']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) {
    await db
      .updateTable('flows')
      .set({
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        ...(changes.visibility !== undefined ? { visibility: changes.visibility } : {}),
        ...(changes.repoUrl !== undefined ? { repo_url: changes.repoUrl } : {}),
        ...(changes.templateSha256 !== undefined ? { template_sha256: changes.templateSha256 } : {}),
        last_modified_at: at,
      })
      .where('organization_id', '=', organizationId)
      .where('name', '=', name)
      .execute();
  }
  const flow = await getFlowRecord(db, organizationId, name);
  return { created: inserted !== undefined, flow: flow! };
}

export async function getFlowRecord(db: Db, organizationId: number, name: string): Promise<FlowRecord | undefined> {
  const row = await db.selectFrom('flows').select(columns).where('organization_id', '=', organizationId).where('name', '=', name).executeTakeFirst();
  return row ? toRecord(row) : undefined;
}

/** The flows of an organisation by name, optionally those whose name contains `search`. */
export async function listFlowRecords(db: Db, organizationId: number, search?: { text: string; caseSensitive: boolean }): Promise<FlowRecord[]> {
  let query = db.selectFrom('flows').select(columns).where('organization_id', '=', organizationId).orderBy('name');
  // The search text is letters, digits and '-' only (the contract says so), so it needs no LIKE escaping.
  // lower() on both sides behaves the same in SQLite and PostgreSQL; case is checked below when asked.
  if (search?.text) query = query.where((eb) => eb(eb.fn('lower', ['name']), 'like', `%${search.text.toLowerCase()}%`));
  const rows = (await query.execute()).map(toRecord);
  return search?.text && search.caseSensitive ? rows.filter((f) => f.name.includes(search.text)) : rows;
}

/**
 * A page of the organisation's flows by name, and how many match: the page and the count in SQL,
 * so that a page reads its own rows, not every flow. The search as `listFlowRecords`' (its case
 * checked in SQL too: instr/strpos compare exactly).
 */
export async function listFlowPage(
  db: Db,
  organizationId: number,
  search: { text: string; caseSensitive: boolean } | undefined,
  page: { offset: number; limit: number },
): Promise<{ items: FlowRecord[]; total: number }> {
  let matching = db.selectFrom('flows').where('organization_id', '=', organizationId);
  if (search?.text) {
    matching = matching.where((eb) => eb(eb.fn('lower', ['name']), 'like', `%${search.text.toLowerCase()}%`));
    if (search.caseSensitive) matching = matching.where(sql<number>`${sql.raw(isSqlite(db) ? 'instr' : 'strpos')}(name, ${search.text})`, '>', 0);
  }
  const [counted, rows] = await Promise.all([
    matching.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    page.limit > 0 ? matching.select(columns).orderBy('name').limit(page.limit).offset(page.offset).execute() : [],
  ]);
  return { total: Number(counted.total), items: rows.map(toRecord) };
}

/** A flow and its latest trail (null before its first). */
export interface FlowWithLatestTrail {
  name: string;
  description: string;
  latestTrail: TrailWithTemplate | null;
}

/**
 * A page of an organisation's flows by name, each with its newest trail read in the same query
 * (one index probe per flow), so that the overview does not read each trail on its own.
 */
export async function flowsWithLatestTrail(
  db: Db,
  organizationId: number,
  offset: number,
  limit: number,
): Promise<{ items: FlowWithLatestTrail[]; total: number }> {
  const { total } = await db
    .selectFrom('flows')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom('flows')
    .leftJoin('trails', (join) =>
      join.on((eb) =>
        eb(
          'trails.id',
          '=',
          eb
            .selectFrom('trails as latest')
            .select('latest.id')
            .whereRef('latest.flow_id', '=', 'flows.id')
            .orderBy('latest.created_at', 'desc')
            .orderBy('latest.id', 'desc')
            .limit(1),
        ),
      ),
    )
    .leftJoin('tokens', 'tokens.id', 'trails.created_by_token')
    .select(['flows.description as flow_description', ...trailColumns])
    .where('flows.organization_id', '=', organizationId)
    .orderBy('flows.name')
    .limit(limit)
    .offset(offset)
    .execute();
  return {
    total: Number(total),
    items: rows.map((r) => ({
      name: r.flow_name,
      description: r.flow_description,
      latestTrail: r.id === null ? null : toTrail(r as TrailSelect),
    })),
  };
}

export const reads = { findFlow, getFlowRecord, listFlowRecords, listFlowPage, flowsWithLatestTrail };
export const writes = { ensureFlow, upsertFlow };
