import { listSnapshots } from '@trailproof/schema';
import { pageHeaders } from '../http/links.ts';
import { definePlugin } from '../plugin.ts';
import type { SnapshotRange } from '../store/types.ts';
import { requireEnvironment, requireEnvironmentUses } from './lookup.ts';
import { parseInterval, type RangeEnd } from './list-environment-events.ts';

/**
 * GET /snapshots/{org}/{env_name}: what `kosli list snapshots` calls. Each snapshot's compliance
 * is the environment's state recorded at its report, as its events keep it (one statement per
 * page).
 */
export const listSnapshotsPlugin = definePlugin({
  operation: listSnapshots,
  store: [...requireEnvironmentUses, 'listSnapshotSummaries'],
  async handler({ params, query, store, now, originalUrl }) {
    const { environment } = await requireEnvironment(store, params.org, params.env_name);
    const [first, last] = query.interval ? parseInterval(query.interval, now) : [{ index: 1 }, { index: -1 }];
    const range: SnapshotRange = { oldestFirst: query.reverse, offset: (query.page - 1) * query.per_page, limit: query.per_page };
    const newest = { oldestFirst: false, offset: 0, limit: 1 };
    // Read only when an end counts back from the latest (-1, ~N).
    let latest: Promise<number> | undefined;
    const index = async (n: number) =>
      n > 0 ? n : Math.max(0, (await (latest ??= store.listSnapshotSummaries(environment.id, newest).then((p) => p.items[0]?.index ?? 0))) + 1 + n);
    const bound = async (end: RangeEnd, side: 'first' | 'last') => {
      if ('time' in end) range[`${side}Time`] = end.time;
      else range[`${side}Index`] = await index(end.index);
    };
    await Promise.all([bound(first, 'first'), bound(last, 'last')]);
    const { total, items } = await store.listSnapshotSummaries(environment.id, range);
    const body = items.map((s) => ({
      index: s.index,
      from: s.from,
      to: s.to ?? 0,
      duration: Math.max(0, (s.to ?? now) - s.from),
      // Not recorded (before migration 0012): not shown compliant, as an environment before its first report.
      compliant: s.compliant ?? false,
    }));
    return { status: 200, body, headers: pageHeaders(originalUrl, query.page, query.per_page, total) };
  },
});
