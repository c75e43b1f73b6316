import { sql, type Selectable } from 'kysely';
import { compiledOnce } from '../compiled-once.ts';
import { isSqlite, type Db, type EnvironmentsTable } from '../database.ts';
import { inTransaction } from '../transactions.ts';
import { writeItems, type ItemsView } from '../views.ts';
import { fromJson } from '../json.ts';
import type { RunningArtifact } from './snapshots.ts';

export interface EnvironmentRecord {
  org: string;
  name: string;
  type: string;
  description: string;
  last_modified_at: number;
  include_scaling: boolean;
  tags: Record<string, unknown>;
  /** 0 before the first report (SPEC.md types it as a number). */
  last_reported_at: number;
  /** 0 before the first report. */
  last_changed_at: number;
  /** false before the first report: nothing has been shown compliant yet (SPEC.md types it as a boolean). */
  state: boolean;
  policies: string[];
  included_environments: string[];
}

export interface EnvironmentInput {
  name: string;
  type: string;
  description?: string;
  include_scaling?: boolean;
  tags?: Record<string, unknown>;
  policies?: string[];
  included_environments?: string[];
  space_id?: string | null;
}

export interface EnvironmentFilter {
  names?: string;
  spaceIds?: string[];
  types?: string[];
  /** `key` or `key:value`; any one matching is enough. */
  tags?: string[];
  sort: 'name' | 'last_modified_at' | 'last_changed_at';
  direction: 'asc' | 'desc';
  offset: number;
  limit: number;
}

/** Creates or updates an environment (its definition, not its reports); says which. */
export async function upsertEnvironment(db: Db, organizationId: number, input: EnvironmentInput, at: number): Promise<{ created: boolean; id: number }> {
  const values = {
    type: input.type,
    description: input.description ?? '',
    include_scaling: input.include_scaling ? 1 : 0,
    tags: JSON.stringify(input.tags ?? {}),
    policies: JSON.stringify(input.policies ?? []),
    included_environments: JSON.stringify(input.included_environments ?? []),
    space_id: input.space_id ?? null,
    last_modified_at: at,
  };
  const existing = await db
    .selectFrom('environments')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('name', '=', input.name)
    .executeTakeFirst();
  let id: number;
  if (existing) {
    id = Number(existing.id);
    await db.updateTable('environments').set(values).where('id', '=', id).execute();
    await db.deleteFrom('environment_tags').where('environment_id', '=', id).execute();
  } else {
    id = await inTransaction(db, async (trx) => {
      const row = await trx
        .insertInto('environments')
        .values({
          ...values,
          organization_id: organizationId,
          name: input.name,
          name_lower: input.name.toLowerCase(),
          last_reported_at: null,
          last_changed_at: null,
          state: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('organizations')
        .set((eb) => ({ environment_count: eb('environment_count', '+', 1) }))
        .where('id', '=', organizationId)
        .execute();
      return Number(row.id);
    });
  }
  const tags = Object.entries(input.tags ?? {});
  if (tags.length) {
    await db
      .insertInto('environment_tags')
      .values(tags.map(([key, value]) => ({ environment_id: id, key, value: tagText(value) })))
      .execute();
  }
  return { created: !existing, id };
}

const tagText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Escapes `%`, `_` and `\` for a LIKE pattern with `ESCAPE '\'`. */
const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The list's values (parameters); which of them are present, with the order, is its shape. */
interface ListValues {
  org: number;
  /** The name filter as a LIKE pattern. */
  nameLike?: string;
  /** SQLite, a name filter of three characters or more: the phrase that finds it in the trigram index (migration 0009). */
  namePhrase?: string;
  spaceIds?: string[];
  types?: string[];
  /** `key` or `key:value` each; any one matching is enough. */
  tags?: Array<{ key: string; value?: string }>;
}

type Order = Pick<EnvironmentFilter, 'sort' | 'direction'>;

/**
 * The filtered environments of the organisation, as `e`. `byNameIndex`: a name filter with a
 * phrase (and no tag filter) starts from the trigram index of names (to count them; a page is
 * found faster by walking the ordered index, which stops at its last match).
 */
function filtered(db: Db, v: ListValues, byNameIndex = false) {
  // A tag filter starts from the matching tags (index on key, value) and looks their
  // environments up by id, rather than probing the tags of every environment of the organisation.
  const tags = v.tags;
  const namePhrase = byNameIndex && !tags?.length ? v.namePhrase : undefined;
  let base = tags?.length
    ? db
        .selectFrom(
          db
            .selectFrom('environment_tags as t')
            .select('t.environment_id')
            .distinct()
            .where((t) =>
              t.or(tags.map((tag) => (tag.value === undefined ? t('t.key', '=', tag.key) : t.and([t('t.key', '=', tag.key), t('t.value', '=', tag.value)])))),
            )
            .as('x'),
        )
        .innerJoin('environments as e', 'e.id', 'x.environment_id')
    : namePhrase !== undefined
      ? db
          .selectFrom(
            sql<{ environment_id: number }>`(select rowid as environment_id from environment_names where environment_names match ${namePhrase})`.as('x'),
          )
          .innerJoin('environments as e', 'e.id', 'x.environment_id')
      : db.selectFrom('environments as e');
  base = base.where('e.organization_id', '=', v.org);
  // The index matched the name already.
  if (v.nameLike !== undefined && namePhrase === undefined) base = base.where(sql<boolean>`e.name_lower like ${v.nameLike} escape '\\'`);
  if (v.spaceIds?.length) base = base.where('e.space_id', 'in', v.spaceIds);
  if (v.types?.length) base = base.where('e.type', 'in', v.types);
  return base;
}

// Every environment of the organisation: the count kept on its row (migration 0008).
const countEnvironments = compiledOnce((db, v: ListValues) =>
  isFiltered(v)
    ? filtered(db, v, true).select((eb) => eb.fn.countAll<number>().as('total'))
    : db.selectFrom('organizations').where('id', '=', v.org).select('environment_count as total'),
);

const isFiltered = (v: ListValues) => v.nameLike !== undefined || v.spaceIds !== undefined || v.types !== undefined || v.tags !== undefined;

const environmentPage = compiledOnce((db, v: ListValues & { limit: number; offset: number }, o: Order) => {
  let page = filtered(db, v).selectAll('e');
  // Never reported (NULL, shown as 0) sorts as 0 would: first ascending, last descending, on
  // both backends (their default NULL orders differ); ties are broken by name so pages are
  // stable. Indexes on (organization_id, column, name_lower, name) serve these orders
  // (migration 0006), so a page reads its own rows, not the whole organisation.
  if (o.sort !== 'name') {
    page = page.orderBy(`e.${o.sort}`, (ob) => (o.direction === 'asc' ? ob.asc().nullsFirst() : ob.desc().nullsLast()));
  }
  // Names sort case-insensitively (as the name filter matches), then exactly, so pages are stable on every backend.
  const nameDirection = o.sort === 'name' ? o.direction : 'asc';
  return page.orderBy('e.name_lower', nameDirection).orderBy('e.name', nameDirection).limit(v.limit).offset(v.offset);
});

/**
 * A page of the organisation's environments that match, and how many match. The page comes as the
 * JSON text of its items, written by `view` where the rows are read (see `listDeployments`).
 */
export async function listEnvironments(
  db: Db,
  organizationId: number,
  f: EnvironmentFilter,
  view: ItemsView<EnvironmentListRow>,
): Promise<{ itemsJson: string; total: number }> {
  const name = f.names?.toLowerCase();
  // One object for both queries (the count ignores the page's limit and offset): not a copy with
  // them added, `{ ...v, limit, offset }`, which cost far more on Node 20 (see WindowValues in deployments.ts).
  const v: ListValues & { limit: number; offset: number } = {
    org: organizationId,
    nameLike: name ? `%${likeEscape(name)}%` : undefined,
    // The trigram index finds substrings of three characters or more (code points), as a phrase.
    namePhrase: name && [...name].length >= 3 && isSqlite(db) ? `"${name.replace(/"/g, '""')}"` : undefined,
    spaceIds: f.spaceIds?.length ? f.spaceIds : undefined,
    types: f.types?.length ? f.types : undefined,
    tags: f.tags?.length
      ? f.tags.map((tag) => {
          const colon = tag.indexOf(':');
          return colon < 0 ? { key: tag } : { key: tag.slice(0, colon), value: tag.slice(colon + 1) };
        })
      : undefined,
    limit: f.limit,
    offset: f.offset,
  };
  const [[counted], rows] = await Promise.all([countEnvironments(db, v), f.limit > 0 ? environmentPage(db, v, { sort: f.sort, direction: f.direction }) : []]);
  return {
    total: Number(counted?.total ?? 0),
    itemsJson: await writeItems(view, rows),
  };
}

/** A row of a page of environments, as `listEnvironments` reads it (http/views/environments.ts writes the API's items). */
export type EnvironmentListRow = Selectable<EnvironmentsTable>;

/**
 * An environment as the API shows it. The database keeps NULL for "never reported" (so it
 * sorts apart); the API answers the number and boolean SPEC.md types these fields as.
 */
export function environmentFromRow(r: EnvironmentListRow, orgName: string): EnvironmentRecord {
  return {
    org: orgName,
    name: r.name,
    type: r.type,
    description: r.description,
    last_modified_at: Number(r.last_modified_at),
    include_scaling: Number(r.include_scaling) === 1,
    tags: JSON.parse(r.tags),
    last_reported_at: Number(r.last_reported_at ?? 0),
    last_changed_at: Number(r.last_changed_at ?? 0),
    state: r.state !== null && Number(r.state) === 1,
    policies: JSON.parse(r.policies),
    included_environments: JSON.parse(r.included_environments),
  };
}

export interface EnvironmentRow extends EnvironmentRecord {
  id: number;
  space_id: string | null;
}

export async function findEnvironment(db: Db, organizationId: number, orgName: string, name: string): Promise<EnvironmentRow | undefined> {
  const r = await db.selectFrom('environments').selectAll().where('organization_id', '=', organizationId).where('name', '=', name).executeTakeFirst();
  if (!r) return undefined;
  return { id: Number(r.id), ...environmentFromRow(r, orgName), space_id: r.space_id };
}

/** The environments of an organisation with these names (to check included environments). */
export async function typesOfEnvironments(db: Db, organizationId: number, names: readonly string[]): Promise<Map<string, string>> {
  if (!names.length) return new Map();
  const rows = await db
    .selectFrom('environments')
    .select(['name', 'type'])
    .where('organization_id', '=', organizationId)
    .where('name', 'in', [...names])
    .execute();
  return new Map(rows.map((r) => [r.name, r.type]));
}

/** Records a report on the environment: when it came, whether it changed what runs, and the compliance state. */
export async function recordReport(db: Db, environmentId: number, report: { at: number; changed: boolean; state: boolean }): Promise<void> {
  await db
    .updateTable('environments')
    .set({
      last_reported_at: report.at,
      state: report.state ? 1 : 0,
      // A new snapshot changes what the environment is; an identical report only says it was seen.
      ...(report.changed ? { last_changed_at: report.at, last_modified_at: report.at } : {}),
    })
    .where('id', '=', environmentId)
    .execute();
}

/** An environment with what runs in it now (its latest snapshot; none before its first report). */
export interface EnvironmentNow {
  name: string;
  type: string;
  /** null before the first report. */
  state: boolean | null;
  lastReportedAt: number | null;
  lastChangedAt: number | null;
  snapshotIndex: number | null;
  artifacts: RunningArtifact[];
}

/** A page of an organisation's environments by name, each with its latest snapshot. */
export async function environmentsNow(db: Db, organizationId: number, offset: number, limit: number): Promise<{ items: EnvironmentNow[]; total: number }> {
  const { total } = await db
    .selectFrom('environments')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom('environments as e')
    .leftJoin('snapshots as s', (join) =>
      join.onRef('s.environment_id', '=', 'e.id').on('s.snapshot_index', '=', (eb) =>
        eb
          .selectFrom('snapshots as l')
          .select((x) => x.fn.max('l.snapshot_index').as('m'))
          .whereRef('l.environment_id', '=', 'e.id'),
      ),
    )
    .select(['e.name', 'e.type', 'e.state', 'e.last_reported_at', 'e.last_changed_at', 's.snapshot_index', 's.artifacts'])
    .where('e.organization_id', '=', organizationId)
    .orderBy('e.name')
    .limit(limit)
    .offset(offset)
    .execute();
  return {
    total: Number(total),
    items: rows.map((r) => ({
      name: r.name,
      type: r.type,
      state: r.state === null ? null : Number(r.state) === 1,
      lastReportedAt: r.last_reported_at === null ? null : Number(r.last_reported_at),
      lastChangedAt: r.last_changed_at === null ? null : Number(r.last_changed_at),
      snapshotIndex: r.snapshot_index === null ? null : Number(r.snapshot_index),
      artifacts: fromJson<RunningArtifact[]>(r.artifacts, []),
    })),
  };
}

export const reads = { listEnvironments, findEnvironment, typesOfEnvironments, environmentsNow };
export const writes = { upsertEnvironment, recordReport };
