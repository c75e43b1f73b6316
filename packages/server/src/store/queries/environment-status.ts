/**
 * The console's list of an organisation's environments: each with its type, attached policies,
 * state and latest snapshot (its time, its compliance when made and what runs in it), a page in
 * the order of an index of `environments` (by name, or by the last change, which is the latest
 * snapshot's time: a snapshot is made by a report that changes what runs).
 */
import { compiledOnce } from '../compiled-once.ts';
import type { Db } from '../database.ts';
import { fromJson } from '../json.ts';
import { withLatestSnapshot } from './environments.ts';
import type { RunningArtifact } from './snapshots.ts';

/** The orders the list has an index for (migration 0006): name, and last change with never reported as 0. */
export const environmentStatusSorts = ['name', 'changed'] as const;
export type EnvironmentStatusSort = (typeof environmentStatusSorts)[number];

/** An environment as the console's list shows it. */
export interface EnvironmentStatus {
  id: number;
  name: string;
  type: string;
  /** The attached policies' names, in attached order. */
  policies: string[];
  /** Compliant by its rule at its last report or policy change; null before the first report. */
  state: boolean | null;
  lastReportedAt: number | null;
  /** The latest snapshot; null before the first report. */
  snapshot: { index: number; createdAt: number; compliant: boolean | null; artifacts: RunningArtifact[] } | null;
}

interface PageValues {
  org: number;
  offset: number;
  limit: number;
}

// The page's ids in the order of an index: `environments_org_name_lower`, or `environments_org_changed_name` (never reported as 0).
const pageIds = compiledOnce((db, v: PageValues, o: { sort: EnvironmentStatusSort; direction: 'asc' | 'desc' }) => {
  let page = db.selectFrom('environments as e').select('e.id').where('e.organization_id', '=', v.org);
  if (o.sort === 'changed') page = page.orderBy('e.last_changed_at', (ob) => (o.direction === 'asc' ? ob.asc().nullsFirst() : ob.desc().nullsLast()));
  // Ties of a time go by name the same way, so that one scan of the index (forwards or backwards) gives the order.
  return page.orderBy('e.name_lower', o.direction).orderBy('e.name', o.direction).limit(v.limit).offset(v.offset);
});

/** The page's environments with their latest snapshots, by id: joined for these rows only, so no planner joins every environment first. */
const withSnapshots = (db: Db, ids: readonly number[]) =>
  withLatestSnapshot(db)
    .select(['e.id', 'e.name', 'e.type', 'e.policies', 'e.state', 'e.last_reported_at', 's.snapshot_index', 's.created_at', 's.compliant', 's.artifacts'])
    .where('e.id', 'in', ids)
    .execute();

// The count kept on the organisation's row (migration 0008), not a count of its environments.
const environmentCount = compiledOnce((db, v: { org: number }) => db.selectFrom('organizations').select('environment_count as total').where('id', '=', v.org));

/** A page of the organisation's environments with their latest snapshots, and how many it has. */
export async function environmentStatusPage(
  db: Db,
  organizationId: number,
  order: { sort: EnvironmentStatusSort; direction: 'asc' | 'desc' },
  offset: number,
  limit: number,
): Promise<{ items: EnvironmentStatus[]; total: number }> {
  const [[counted], ids] = await Promise.all([
    environmentCount(db, { org: organizationId }),
    pageIds(db, { org: organizationId, offset, limit }, { sort: order.sort, direction: order.direction }),
  ]);
  const found = ids.length
    ? await withSnapshots(
        db,
        ids.map((r) => Number(r.id)),
      )
    : [];
  const byId = new Map(found.map((r) => [Number(r.id), r]));
  const rows = ids.flatMap((r) => byId.get(Number(r.id)) ?? []);
  return {
    total: Number(counted?.total ?? 0),
    items: rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      type: r.type,
      policies: fromJson<string[]>(r.policies, []),
      state: r.state === null ? null : Number(r.state) === 1,
      lastReportedAt: r.last_reported_at === null ? null : Number(r.last_reported_at),
      snapshot:
        r.snapshot_index === null
          ? null
          : {
              index: Number(r.snapshot_index),
              createdAt: Number(r.created_at),
              compliant: r.compliant === null ? null : Number(r.compliant) === 1,
              artifacts: fromJson<RunningArtifact[]>(r.artifacts, []),
            },
    })),
  };
}

export const reads = { environmentStatusPage };
