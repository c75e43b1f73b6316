/** Deployments per UTC day, for the console's chart: read from the per-day counts that `total_count` uses (migration 0004). */
import type { Db } from '../database.ts';

const secondsPerDay = 86_400;

/** At most this many days are read: a chart of a longer window shows its last days. */
export const maxChartDays = 92;

/**
 * Each UTC day from the one holding `start` to the one holding `end` (the last `maxChartDays` of
 * them), oldest first, with the whole day's deployments under the filter (`envName`, `repoName`;
 * undefined for any), zeros included. Edge days count the whole day, also the hours outside the
 * window. Reads one row per day that had deployments, however many deployments a day holds.
 */
export async function deploymentsPerDay(
  db: Db,
  organizationId: number,
  f: { start: number; end: number; envName?: string; repoName?: string },
): Promise<Array<{ day: string; count: number }>> {
  const lastDay = Math.floor(f.end / secondsPerDay);
  const firstDay = Math.max(Math.floor(f.start / secondsPerDay), lastDay - maxChartDays + 1);
  if (firstDay > lastDay) return [];
  const rows = await db
    .selectFrom('deployment_counts')
    .select(['day', 'count'])
    .where('organization_id', '=', organizationId)
    .where('env_name', '=', f.envName ?? '')
    .where('repo_name', '=', f.repoName ?? '')
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .execute();
  const counts = new Map(rows.map((r) => [Number(r.day), Number(r.count)]));
  const days: Array<{ day: string; count: number }> = [];
  for (let day = firstDay; day <= lastDay; day++)
    days.push({ day: new Date(day * secondsPerDay * 1000).toISOString().slice(0, 10), count: counts.get(day) ?? 0 });
  return days;
}

export const reads = { deploymentsPerDay };
export const writes = {};
