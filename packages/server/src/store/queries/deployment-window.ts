/**
 * A window of an organisation's deployments (a time range, an environment, a repository): how
 * many there are, counted from the per-day and per-hour counts that `insertDeployments` keeps
 * with the rows wherever whole days or hours lie inside the window, and where a deep page of it
 * starts, found by skipping whole days by their counts. `listDeployments` (deployments.ts) reads
 * its pages with these.
 */
import { sql } from 'kysely';
import { compiledOnce } from '../compiled-once.ts';
import type { Db } from '../database.ts';

export const secondsPerDay = 86_400;
export const secondsPerHour = 3_600;
const hoursPerDay = 24;

/**
 * The filter's values. Queries that add their own take them spelled out (`{ org: w.org, ...,
 * start }`), not spread (`{ ...w, start }`): on Node 20 an object built by a spread and then given
 * more properties is a slow path and outlived the young generation's
 * collections (see docs/internals.md).
 */
export interface WindowValues {
  org: number;
  envName: string | undefined;
  repoName: string | undefined;
}

/** The filter's rows in [from, to], or [from, to) when `toExclusive`. */
export function windowRows(db: Db, v: WindowValues, from: number, to: number, toExclusive = false) {
  let q = db
    .selectFrom('deployments as d')
    .where('d.organization_id', '=', v.org)
    .where('d.deployed_at', '>=', from)
    .where('d.deployed_at', toExclusive ? '<' : '<=', to);
  if (v.envName !== undefined) q = q.where('d.env_name', '=', v.envName);
  if (v.repoName !== undefined) q = q.where('d.repo_name', '=', v.repoName);
  return q;
}

const countRows = (q: ReturnType<typeof windowRows>) => q.select((eb) => eb.fn.countAll().as('n'));

/** Deployments in [start, end]. */
const countWithin = compiledOnce((db, v: WindowValues & { start: number; end: number }) =>
  db.selectNoFrom(sql<number>`${countRows(windowRows(db, v, v.start, v.end))}`.as('n')),
);

/** Sum of the per-day counts of a key (`envKey`, `repoKey`; '' for any) over the days after `after` and before `before`. */
const wholeDays = (db: Db, org: number, envKey: string, repoKey: string, after: number, before: number) =>
  db
    .selectFrom('deployment_counts')
    .where('organization_id', '=', org)
    .where('env_name', '=', envKey)
    .where('repo_name', '=', repoKey)
    .where('day', '>', after)
    .where('day', '<', before)
    .select((eb) => eb.fn.sum('count').as('n'));

/** Sum of the organisation's per-hour counts over the hours after `after` and before `before`. */
const wholeHours = (db: Db, org: number, after: number, before: number) =>
  db
    .selectFrom('deployment_hour_counts')
    .where('organization_id', '=', org)
    .where('hour', '>', after)
    .where('hour', '<', before)
    .select((eb) => eb.fn.sum('count').as('n'));

/**
 * Deployments of a filtered list in [start, end] over two days or more: whole UTC days
 * (firstDay, lastDay) from the per-day counts, the two partial days at the edges from the
 * filter's rows themselves, so the cost does not grow with the window. One statement (three
 * scalar subqueries): one round trip.
 */
const countAcrossDays = compiledOnce(
  (
    db,
    v: WindowValues & { start: number; headEnd: number; tailStart: number; end: number; firstDay: number; lastDay: number; envKey: string; repoKey: string },
  ) =>
    db.selectNoFrom(
      sql<number>`${countRows(windowRows(db, v, v.start, v.headEnd, true))}
      + ${countRows(windowRows(db, v, v.tailStart, v.end))}
      + coalesce(${wholeDays(db, v.org, v.envKey, v.repoKey, v.firstDay, v.lastDay)}, 0)`.as('n'),
    ),
);

/**
 * Deployments of the whole organisation (no filter) in [start, end] over two hours or more: the
 * partial hours at the edges from the rows, whole hours from the per-hour counts, and whole days
 * between the window's first and last day from the per-day counts. The rows counted are those
 * of two hours at most, however many deployments a day brings. One statement: one round trip.
 */
const countAcrossHours = compiledOnce(
  (
    db,
    v: {
      org: number;
      start: number;
      headEnd: number;
      tailStart: number;
      end: number;
      startHour: number;
      headHoursBefore: number;
      firstDay: number;
      lastDay: number;
      tailHoursAfter: number;
      endHour: number;
    },
  ) => {
    const all: WindowValues = { org: v.org, envName: undefined, repoName: undefined };
    return db.selectNoFrom(
      sql<number>`${countRows(windowRows(db, all, v.start, v.headEnd, true))}
      + coalesce(${wholeHours(db, v.org, v.startHour, v.headHoursBefore)}, 0)
      + coalesce(${wholeDays(db, v.org, '', '', v.firstDay, v.lastDay)}, 0)
      + coalesce(${wholeHours(db, v.org, v.tailHoursAfter, v.endHour)}, 0)
      + ${countRows(windowRows(db, all, v.tailStart, v.end))}`.as('n'),
    );
  },
);

/** Per-day counts of whole days after firstDay and before `before`, newest first, `limit` of them (days without rows have none). */
const daysBefore = compiledOnce((db, v: { org: number; envKey: string; repoKey: string; firstDay: number; before: number; limit: number }) =>
  db
    .selectFrom('deployment_counts')
    .select(['day', 'count'])
    .where('organization_id', '=', v.org)
    .where('env_name', '=', v.envKey)
    .where('repo_name', '=', v.repoKey)
    .where('day', '>', v.firstDay)
    .where('day', '<', v.before)
    .orderBy('day', 'desc')
    .limit(v.limit),
);

/** Days read at once while skipping (reading all of a year's at once cost more than the rows skipped). */
const daysPerRead = 32;

/** From this offset on, a page skips whole days by their counts instead of stepping over every row it skips. */
export const deepPageOffset = 1_000;

/**
 * Where a deep page starts: the rows newer than it are skipped a day at a time, from the per-day
 * counts (the newest, partial day counted as `total_count` counts), so that what the page query
 * steps over is the rows of one day, not all those before the page. Answers the window's new end (exclusive: a day boundary) and
 * the offset left within it; the window and offset as they are for a shallow page.
 */
export async function deepPageStart(
  db: Db,
  w: WindowValues,
  f: { start: number; end: number; offset: number },
): Promise<{ end: number; endExclusive: boolean; offset: number }> {
  const asIs = { end: f.end, endExclusive: false, offset: f.offset };
  const firstDay = Math.floor(f.start / secondsPerDay);
  const lastDay = Math.floor(f.end / secondsPerDay);
  if (f.offset < deepPageOffset || lastDay - firstDay < 2) return asIs;
  let skipped = await countDeployments(db, w, lastDay * secondsPerDay, f.end);
  if (skipped > f.offset) return asIs;
  // Rows before day `cut` remain; each whole day that ends before the page starts is skipped.
  let cut = lastDay;
  skipping: for (;;) {
    const days = await daysBefore(db, { org: w.org, envKey: w.envName ?? '', repoKey: w.repoName ?? '', firstDay, before: cut, limit: daysPerRead });
    for (const { day, count } of days) {
      if (skipped + Number(count) > f.offset) break skipping;
      skipped += Number(count);
      cut = Number(day);
    }
    // No whole day left: the page starts in the oldest, partial day (or after the window's last row).
    if (days.length < daysPerRead) break;
  }
  return { end: cut * secondsPerDay, endExclusive: true, offset: f.offset - skipped };
}

/** How many deployments the filter `w` selects in [start, end]. */
export async function countDeployments(db: Db, w: WindowValues, start: number, end: number): Promise<number> {
  const firstDay = Math.floor(start / secondsPerDay);
  const lastDay = Math.floor(end / secondsPerDay);
  const startHour = Math.floor(start / secondsPerHour);
  const endHour = Math.floor(end / secondsPerHour);
  const [row] =
    w.envName === undefined && w.repoName === undefined && endHour - startHour >= 2
      ? await countAcrossHours(db, {
          org: w.org,
          start,
          headEnd: (startHour + 1) * secondsPerHour,
          tailStart: endHour * secondsPerHour,
          end,
          // Whole hours of the first day, whole days, whole hours of the last day (when the window spans one day, the first part is all of them).
          startHour,
          headHoursBefore: Math.min(endHour, (firstDay + 1) * hoursPerDay),
          firstDay,
          lastDay,
          tailHoursAfter: Math.max(lastDay, firstDay + 1) * hoursPerDay - 1,
          endHour,
        })
      : lastDay - firstDay < 2
        ? await countWithin(db, { org: w.org, envName: w.envName, repoName: w.repoName, start, end })
        : await countAcrossDays(db, {
            org: w.org,
            envName: w.envName,
            repoName: w.repoName,
            start,
            headEnd: (firstDay + 1) * secondsPerDay,
            tailStart: lastDay * secondsPerDay,
            end,
            firstDay,
            lastDay,
            envKey: w.envName ?? '',
            repoKey: w.repoName ?? '',
          });
  return Number(row?.n ?? 0);
}
