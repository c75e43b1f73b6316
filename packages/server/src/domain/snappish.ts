/**
 * Kosli's snapshot expressions ("snappish"), as `kosli get snapshot`, `assert snapshot` and `diff
 * snapshots` send them (kosli-dev/cli 71ac0f30 cli_utils.go `handleExpressions`,
 * `handleSnapshotExpressions`; the OpenAPI's `snapshot_expression`): N (snapshot N; negative counts
 * back from the latest, -1 is it), #N (snapshot N), ~N (N behind the latest), and @{...}: a UTC time
 * `YYYY-MM-DDTHH:MM:SS`, `N.<hours|days|weeks|months>.ago`, or `now`. Parsed strictly: anything
 * else is null, for the caller's 400.
 */

/** Which snapshot: by index, counted back from the latest (0 is the latest), or the one current at a time. */
export type SnapshotRef = { index: number } | { back: number } | { at: number };

const secondsAgo: Readonly<Record<string, number>> = {
  hour: 3_600,
  hours: 3_600,
  day: 86_400,
  days: 86_400,
  week: 604_800,
  weeks: 604_800,
  // A month as 30 days, as git's approxidate (which the form follows) counts it.
  month: 2_592_000,
  months: 2_592_000,
};

/** Most digits of a count: beyond a billion snapshots or units, the number is no reference. */
const count = '(\\d{1,9})';

/** The time an `@{...}` body names, Unix seconds; null when it is none of the forms or not a real date. */
function timeOf(body: string, now: number): number | null {
  if (body.toLowerCase() === 'now') return now;
  const ago = new RegExp(`^${count}\\.([a-z]+)\\.ago$`).exec(body.toLowerCase());
  if (ago) {
    const unit = secondsAgo[ago[2]!];
    return unit === undefined ? null : now - Number(ago[1]) * unit;
  }
  const date = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(body);
  if (!date) return null;
  const [year, month, day, hour, minute, second] = date.slice(1).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC carries 2023-02-30 into March: a date that does not come back the same is not one.
  const back = new Date(ms);
  const same =
    back.getUTCFullYear() === year &&
    back.getUTCMonth() === month - 1 &&
    back.getUTCDate() === day &&
    back.getUTCHours() === hour &&
    back.getUTCMinutes() === minute &&
    back.getUTCSeconds() === second;
  return same ? ms / 1000 : null;
}

/** The snapshot part of an expression (`-1`, `#3`, `~2`, `@{now}`); null when it is none of the forms. */
export function parseSnapshotRef(text: string, now: number): SnapshotRef | null {
  const integer = new RegExp(`^(-?)${count}$`).exec(text);
  if (integer) {
    const n = Number(integer[2]);
    if (n === 0) return null;
    return integer[1] ? { back: n - 1 } : { index: n };
  }
  const numbered = new RegExp(`^([#~])${count}$`).exec(text);
  if (numbered) {
    const n = Number(numbered[2]);
    if (numbered[1] === '~') return { back: n };
    return n === 0 ? null : { index: n };
  }
  const timed = /^@\{([^{}]{1,40})\}$/.exec(text);
  if (!timed) return null;
  const at = timeOf(timed[1]!, now);
  return at === null ? null : { at };
}

/** What the snapshot part of an expression may be, for a 400's `errors`. */
export const snapshotRefRule =
  'must be N (snapshot N; -1 is the latest), #N, ~N (N behind the latest), @{YYYY-MM-DDTHH:MM:SS} (UTC), @{N.<hours|days|weeks|months>.ago} or @{now}';

/**
 * A whole snappish of `diff snapshots`: an environment name, then at most one of `#`, `~` or `@`
 * and the snapshot part (none: the latest). Split at the first separator, as the CLI splits it.
 */
export function parseSnappish(text: string, now: number): { envName: string; ref: SnapshotRef } | null {
  const separators = ['#', '~', '@'].filter((s) => text.includes(s));
  if (separators.length === 0) return text === '' ? null : { envName: text, ref: { back: 0 } };
  if (separators.length > 1) return null;
  const at = text.indexOf(separators[0]!);
  const envName = text.slice(0, at);
  const ref = parseSnapshotRef(text.slice(at), now);
  return envName === '' || !ref ? null : { envName, ref };
}

/** What a snappish may be, for a 400's `errors`. */
export const snappishRule = 'must be ENV, ENV#N, ENV~N, ENV@{YYYY-MM-DDTHH:MM:SS} (UTC), ENV@{N.<hours|days|weeks|months>.ago} or ENV@{now}';
