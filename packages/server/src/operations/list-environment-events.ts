import { listEnvironmentEvents } from '@trailproof/schema';
import { describeChange } from '../domain/events.ts';
import { badRequest } from '../http/errors.ts';
import { environmentHref, pageHeaders, trailHref } from '../http/links.ts';
import { definePlugin } from '../plugin.ts';
import type { EnvironmentEventFilter } from '../store/types.ts';
import { secondsPerUnit } from '../support/time-units.ts';
import { requireEnvironment, requireEnvironmentUses } from './lookup.ts';

/** One end of the range: a snapshot index (negative: back from the latest) or a time. */
type RangeEnd = { index: number } | { time: number };

/** Integers from here on are Unix timestamps (2001-09-09), below it snapshot indexes. */
const firstTimestamp = 1_000_000_000;

/** Reads one end of the range (`start`, `end`, or a half of `interval`); `null` when it is none of the forms. */
export function parseRangeEnd(text: string, now: number): RangeEnd | null {
  const value = text.trim().toLowerCase();
  if (value === 'now') return { time: now };
  if (/^-?\d{1,15}$/.test(value)) {
    const n = Number(value);
    if (n === 0) return null;
    return n >= firstTimestamp ? { time: n } : { index: n };
  }
  if (/^\d{10,12}\.\d+$/.test(value)) return { time: Number(value) };
  const ago = /^(\d{1,9}) ?([a-z]+)$/.exec(value);
  const unit = ago ? secondsPerUnit.get(ago[2]!) : undefined;
  if (unit !== undefined) return { time: now - Number(ago![1]) * unit };
  return null;
}

const rangeEndRule = 'must be a snapshot index (1, -1), a Unix timestamp, NOW, or a time ago (30mins, 1h, 2days, 1w)';

/** GET /environments/{org}/{env_name}/events: newest first, paginated in headers as the reference does. */
export const listEnvironmentEventsPlugin = definePlugin({
  operation: listEnvironmentEvents,
  store: [...requireEnvironmentUses, 'getSnapshot', 'listEnvironmentEvents'],
  async handler({ params, query, store, now, apiBase, originalUrl }) {
    const { environment } = await requireEnvironment(store, params.org, params.env_name);

    // The deprecated `interval` (`start..end`) wins over start and end, as one value.
    let ends: Array<[string, string]> = [
      ['start', query.start],
      ['end', query.end],
    ];
    if (query.interval !== undefined) {
      const halves = query.interval.split('..');
      if (halves.length !== 2) throw badRequest('Invalid interval', { 'query.interval': 'must be two ends separated by ".." (5..10, -3..NOW)' });
      ends = [
        ['interval', halves[0]!],
        ['interval', halves[1]!],
      ];
    }
    const [first, last] = ends.map(([field, text]) => {
      const end = parseRangeEnd(text, now);
      if (!end) throw badRequest(`Invalid ${field}`, { [`query.${field}`]: rangeEndRule });
      return end;
    }) as [RangeEnd, RangeEnd];

    const filter: EnvironmentEventFilter = {
      // An empty value is no filter, as in the deployment list (`?repo_name=`).
      repoNames: query.repo_name?.filter((name) => name !== ''),
      oldestFirst: query.reverse,
      offset: (query.page - 1) * query.per_page,
      limit: query.per_page,
    };
    // Read once, and only when an end counts back from it (start=-3&end=-1 needs it twice).
    let latest: Promise<number> | undefined;
    const latestIndex = () => (latest ??= store.getSnapshot(environment.id, -1).then((snapshot) => snapshot?.index ?? 0));
    // A negative index counts back from the latest snapshot (-1 is the latest); one before the
    // first is kept at 0, as an index column holds it (snapshots are numbered from 1).
    const index = async (n: number) => (n > 0 ? n : Math.max(0, (await latestIndex()) + 1 + n));
    if ('index' in first) filter.firstIndex = await index(first.index);
    else filter.firstTime = first.time;
    // `end=NOW` (the default) bounds nothing: a report that lands while this reads is not cut in two.
    const endIsNow = 'time' in last && last.time === now;
    if (!endIsNow) {
      if ('index' in last) filter.lastIndex = await index(last.index);
      else filter.lastTime = last.time;
    }

    const { total, items } = await store.listEnvironmentEvents(environment.id, filter);
    const at = { org: params.org, apiBase };
    const environmentLink = environmentHref(at, environment.name);
    const body = items.map((e) => ({
      type: e.type,
      environment_name: environment.name,
      snapshot_index: e.snapshotIndex,
      artifact_name: e.artifactName,
      sha256: e.fingerprint,
      description: describeChange(e),
      reported_at: e.reportedAt,
      instances_before: e.instancesBefore,
      instances_after: e.instancesAfter,
      flows: e.trail ? [{ flow_name: e.trail.flowName, deployments: null }] : [],
      artifact_compliance: e.artifactCompliant,
      snapshot_compliance: e.snapshotCompliant,
      pipeline: null,
      deployments: null,
      code_diff: null,
      _links: {
        environment: { href: environmentLink },
        snapshot: { href: `${environmentLink}/snapshots/${e.snapshotIndex}` },
        ...(e.trail ? { trail: { href: trailHref(at, e.trail.flowName, e.trail.name) } } : {}),
      },
    }));

    return { status: 200, body, headers: pageHeaders(originalUrl, query.page, query.per_page, total) };
  },
});
