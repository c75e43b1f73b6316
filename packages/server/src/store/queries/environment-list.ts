/**
 * A page of an organisation's environments: filtered by name (a LIKE pattern, or SQLite's trigram
 * index of names for three characters or more), space, type and tags, sorted by name or by a time,
 * and counted (from the count kept on the organisation's row when nothing filters).
 */
import { sql, type Selectable } from 'kysely';
import { compiledOnce } from '../compiled-once.ts';
import { isSqlite, type Db, type EnvironmentsTable } from '../database.ts';

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

/** A page of the organisation's environments that match, and how many match. */
export async function listEnvironments(db: Db, organizationId: number, f: EnvironmentFilter): Promise<{ total: number; rows: EnvironmentListRow[] }> {
  const name = f.names?.toLowerCase();
  // One object for both queries (the count ignores the page's limit and offset): not a copy with
  // them added, `{ ...v, limit, offset }`, which cost far more on Node 20 (see WindowValues in deployment-window.ts).
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
  return { total: Number(counted?.total ?? 0), rows };
}

/** An environment of a page of `listEnvironments`, as stored (http/views/environments.ts writes the API's items of them). */
export type EnvironmentListRow = Selectable<EnvironmentsTable>;

export const reads = { listEnvironments };
