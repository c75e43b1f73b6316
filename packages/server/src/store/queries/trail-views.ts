/**
 * The console's view of an organisation's trails across its flows: narrowed by flow, branch,
 * commit and time range, sorted by a column. The API's list (`listOrganizationTrailPage`) has no
 * such filters; this one pages the same way and gives the same trail records.
 */
import { sql, type SelectQueryBuilder } from 'kysely';
import { compiledOnce } from '../compiled-once.ts';
import { isPostgres, jsonTextOf, type Database, type Db } from '../database.ts';
import { pageOfTrails, trailCount, type TrailWithTemplate } from './trails.ts';

/** What the view is narrowed to; every field optional, all of them together. */
export interface TrailViewFilter {
  flowId?: number;
  /** The branch as `git_commit_info.branch` names it, whole. */
  branch?: string;
  /** A commit SHA or its start (lowercase hexadecimal). */
  commitPrefix?: string;
  /** Begun at or after, Unix seconds. */
  from?: number;
  /** Begun before, Unix seconds. */
  until?: number;
}

/** The columns the view sorts by: when begun, the trail's name, its flow's name. */
export const trailViewSorts = ['created', 'name', 'flow'] as const;
export type TrailViewSort = (typeof trailViewSorts)[number];

type TrailQuery<O> = SelectQueryBuilder<Database, 'trails' | 'flows', O>;

/** The filter as conditions on `trails` joined to `flows`, the organisation first (`trails_org_created`). */
function narrowed<O>(db: Db, query: TrailQuery<O>, organizationId: number, filter: TrailViewFilter): TrailQuery<O> {
  const { flowId, branch, commitPrefix, from, until } = filter;
  // The branch is inside the trail's git facts: no column of its own, read from the JSON.
  const branchOf = jsonTextOf(db, 'trails.git_commit_info', 'branch');
  return (
    query
      .where('trails.organization_id', '=', organizationId)
      .$if(flowId !== undefined, (q) => q.where('trails.flow_id', '=', flowId!))
      .$if(branch !== undefined, (q) => q.where(branchOf, '=', branch!))
      // A prefix of lowercase hexadecimal is a range of `trails_commit`: every longer SHA sorts below the prefix and 'g'.
      .$if(commitPrefix !== undefined, (q) => q.where('trails.commit_sha', '>=', commitPrefix!).where('trails.commit_sha', '<', `${commitPrefix}g`))
      .$if(from !== undefined, (q) => q.where('trails.created_at', '>=', from!))
      .$if(until !== undefined, (q) => q.where('trails.created_at', '<', until!))
  );
}

/** A page of the organisation's trails matching `filter`, in the order asked (ties newest first), and how many match. */
export async function listTrailView(
  db: Db,
  organizationId: number,
  filter: TrailViewFilter,
  sort: { by: TrailViewSort; direction: 'asc' | 'desc' },
  offset: number,
  limit: number,
): Promise<{ items: TrailWithTemplate[]; total: number }> {
  const joined = db.selectFrom('trails').innerJoin('flows', 'flows.id', 'trails.flow_id');
  const { flowId, ...narrowing } = filter;
  // Unfiltered (or by flow alone) the counts the rows keep answer: counting 100,000 trails cost more than the page.
  const total = Object.values(narrowing).every((v) => v === undefined)
    ? await trailCount(db, flowId === undefined ? { organizationId } : { flowId })
    : Number(
        (
          await narrowed(
            db,
            joined.select((eb) => eb.fn.countAll<number>().as('total')),
            organizationId,
            filter,
          ).executeTakeFirstOrThrow()
        ).total,
      );
  const column = sort.by === 'name' ? 'trails.name' : sort.by === 'flow' ? 'flows.name' : 'trails.created_at';
  const rows = await narrowed(db, joined.select('trails.id'), organizationId, filter)
    .orderBy(column, sort.direction)
    .$if(sort.by !== 'created', (q) => q.orderBy('trails.created_at', 'desc'))
    .orderBy('trails.id', sort.by === 'created' ? sort.direction : 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return pageOfTrails(db, total, rows);
}

/** Past every character a name can hold after the prefix, byte by byte (U+10FFFF, the last code point). */
const pastPrefix = '\u{10FFFF}';

// The name compared byte by byte on both engines, in the order of `trails_org_name` (migration 0030), so the range is read only up to the limit.
const nameRange = compiledOnce((db, v: { organizationId: number; from: string; to: string; limit: number }) => {
  const name = isPostgres(db) ? sql<string>`trails.name collate "C"` : sql<string>`trails.name`;
  return db
    .selectFrom('trails')
    .select('trails.id')
    .where('trails.organization_id', '=', v.organizationId)
    .where(name, '>=', v.from)
    .where(name, '<', v.to)
    .orderBy(name)
    .orderBy('trails.created_at', 'desc')
    .orderBy('trails.id', 'desc')
    .limit(v.limit);
});

/**
 * Trails of the organisation whose name starts with `prefix` (case counts), by name and newest
 * first within a name, at most `limit`: a range of `trails_org_name`, which a name that matches
 * nothing ends at once.
 */
export async function trailsNamed(db: Db, organizationId: number, prefix: string, limit: number): Promise<TrailWithTemplate[]> {
  if (!prefix) return [];
  const rows = await nameRange(db, { organizationId, from: prefix, to: `${prefix}${pastPrefix}`, limit });
  return (await pageOfTrails(db, rows.length, rows)).items;
}

export const reads = { listTrailView, trailsNamed };
