import { listEnvironmentEvents } from '@trailproof/schema';
import { describeChange } from '../domain/events.ts';
import { badRequest } from '../http/errors.ts';
import { environmentHref, pageHeaders, trailHref } from '../http/links.ts';
import { definePlugin } from '../plugin.ts';
import type { EnvironmentEventFilter } from '../store/types.ts';
import { secondsPerUnit } from '../support/time-units.ts';
import { requireEnvironment, requireEnvironmentUses } from './lookup.ts';

/** One end of the range: a snapshot index (negative: back from the latest) or a time. */
export type RangeEnd = { index: number } | { time: number };

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
const intervalRule = 'must be snapshot expressions N, ~N or NOW (or a form of start and end), one or two separated by ".." (5..10, ~3..NOW, 2.., NOW)';

/** One end of `interval`, a snapshot expression as the Kosli CLI documents it: NOW is the latest snapshot, ~N the N'th behind it. */
function parseSnapshotExpression(text: string, now: number): RangeEnd | null {
  const value = text.trim().toUpperCase();
  if (value === '' || value === 'NOW') return { index: -1 };
  const behind = /^~(\d{1,15})$/.exec(value);
  if (behind) return { index: -(Number(behind[1]) + 1) };
  return parseRangeEnd(text, now);
}

/** `interval`'s ends: one expression or two separated by "..", an end left out being NOW; a 400 naming `query.interval` otherwise. */
export function parseInterval(interval: string, now: number): [RangeEnd, RangeEnd] {
  const halves = interval.split('..');
  if (halves.length > 2) throw badRequest('Invalid interval', { 'query.interval': intervalRule });
  const ends = halves.map((half) => parseSnapshotExpression(half, now));
  if (ends.some((end) => end === null)) throw badRequest('Invalid interval', { 'query.interval': intervalRule });
  return [ends[0]!, ends[ends.length - 1]!];
}

type RangeQuery = { start: string; end: string; interval?: string; start_ts?: string; end_ts?: string };

/**
 * The range asked for: a non-empty `interval` wins (one expression is that snapshot alone, an end
 * left out is NOW), then `start_ts`/`end_ts` (Unix seconds) over `start`/`end`.
 */
function rangeOf(query: RangeQuery, now: number): [RangeEnd, RangeEnd] {
  if (query.interval !== undefined && query.interval !== '') return parseInterval(query.interval, now);
  const end = (field: 'start' | 'end'): RangeEnd => {
    const seconds = query[`${field}_ts`];
    if (seconds !== undefined) return { time: Number(seconds) };
    const parsed = parseRangeEnd(query[field], now);
    if (!parsed) throw badRequest(`Invalid ${field}`, { [`query.${field}`]: rangeEndRule });
    return parsed;
  };
  return [end('start'), end('end')];
}

/** GET /environments/{org}/{env_name}/events: newest first, paginated in headers as the reference does. */
export const listEnvironmentEventsPlugin = definePlugin({
  operation: listEnvironmentEvents,
  store: [...requireEnvironmentUses, 'getSnapshot', 'listEnvironmentEvents'],
  async handler({ params, query, store, now, apiBase, originalUrl }) {
    const { environment } = await requireEnvironment(store, params.org, params.env_name);

    const [first, last] = rangeOf(query, now);
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
    // `end=NOW` (the default) and the latest snapshot bound nothing: a report that lands while this reads is not cut in two.
    const endIsNow = 'time' in last ? last.time === now : last.index === -1;
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
      trail_name: e.trail?.name ?? null,
      git_commit: e.trail?.gitCommit ?? null,
      artifact_compliance: e.artifactCompliant,
      snapshot_compliance: e.snapshotCompliant,
      pipeline: e.trail?.flowName ?? '',
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
