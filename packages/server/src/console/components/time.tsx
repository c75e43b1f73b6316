/** A time in UTC, with how long ago it was as a hint. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { html, type Markup } from '../markup.ts';

const pad = (n: number) => String(n).padStart(2, '0');

/** `2026-11-26 10:12 UTC` */
export function utc(seconds: number): string {
  const d = new Date(seconds * 1000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

/** `3 min ago`, `2 h ago`, `5 days ago`, `in 2 h` */
export function relative(seconds: number, now: number): string {
  const delta = Math.round(now - seconds);
  const span = Math.abs(delta);
  const text =
    span < 60 ? `${span} s` : span < 3600 ? `${Math.floor(span / 60)} min` : span < 86400 ? `${Math.floor(span / 3600)} h` : `${Math.floor(span / 86400)} days`;
  return delta >= 0 ? `${text} ago` : `in ${text}`;
}

/**
 * Until when (Unix seconds, exclusive) `relative(seconds, t)` is the same text for every `t` from
 * `now` on: the next time its count of seconds, minutes, hours or days moves (for a time still to
 * come, its next second, sooner than needed). Pages that remember their HTML end it then.
 */
export function relativeLastsUntil(seconds: number, now: number): number {
  const delta = Math.round(now - seconds);
  // `delta` moves to d + 1 at the time t with t - seconds = d + 0.5 (Math.round rounds halves up).
  if (delta < 0) return seconds + delta + 0.5;
  const unit = delta < 60 ? 1 : delta < 3600 ? 60 : delta < 86400 ? 3600 : 86400;
  return seconds + (Math.floor(delta / unit) + 1) * unit - 0.5;
}

/** Until when (Unix seconds, exclusive) `utc(t)` is the same text for every `t` from `now` on: the next minute. */
export const utcLastsUntil = (now: number): number => (Math.floor(now / 60) + 1) * 60;

/** Until when the "how long ago" of the times written so far holds, for the render under way (`notingTimes`). */
const shownTimes = new AsyncLocalStorage<{ until: number }>();

/**
 * Runs `render`, noting until when (Unix seconds, exclusive) the "how long ago" of every time it
 * writes (`Time`, `timeMarkup`) holds: the least of their `relativeLastsUntil`, Infinity with none.
 * A remembered page (page.ts) ends then: its own `until` need not name them.
 */
export async function notingTimes<T>(render: () => Promise<T>): Promise<{ value: T; until: number }> {
  const noted = { until: Number.POSITIVE_INFINITY };
  const value = await shownTimes.run(noted, render);
  return { value, until: noted.until };
}

function noteShown(at: number, now: number): void {
  const noted = shownTimes.getStore();
  if (noted) noted.until = Math.min(noted.until, relativeLastsUntil(at, now));
}

/** The `datetime` and the text of a time. */
function timeTexts(at: number): { iso: string; text: string } {
  const iso = new Date(at * 1000).toISOString();
  // `2026-11-26T10:12:30.000Z` holds the UTC text: one date per time (years past 9999 are written otherwise).
  return { iso, text: iso.length === 24 ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : utc(at) };
}

/** Nothing for times that are not set (0: never reported). */
export function Time({ at, now }: { at: number | null | undefined; now: number }) {
  if (!at) return <span class="muted">never</span>;
  noteShown(at, now);
  const { iso, text } = timeTexts(at);
  return (
    <span>
      <time datetime={iso}>{text}</time> <span class="rel">({relative(at, now)})</span>
    </span>
  );
}

/** `Time` as markup (markup.ts), for the rows of long tables: the same HTML. */
export function timeMarkup(at: number | null | undefined, now: number): Markup {
  if (!at) return html`<span class="muted">never</span>`;
  noteShown(at, now);
  const { iso, text } = timeTexts(at);
  return html`<span><time datetime="${iso}">${text}</time> <span class="rel">(${relative(at, now)})</span></span>`;
}
