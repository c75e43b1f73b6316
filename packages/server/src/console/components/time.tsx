/** A time in UTC, with how long ago it was as a hint. */
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

/** The `datetime` and the text of a time. */
function timeTexts(at: number): { iso: string; text: string } {
  const iso = new Date(at * 1000).toISOString();
  // `2026-11-26T10:12:30.000Z` holds the UTC text: one date per time (years past 9999 are written otherwise).
  return { iso, text: iso.length === 24 ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : utc(at) };
}

/** Nothing for times that are not set (0: never reported). */
export function Time({ at, now }: { at: number | null | undefined; now: number }) {
  if (!at) return <span class="muted">never</span>;
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
  const { iso, text } = timeTexts(at);
  return html`<span><time datetime="${iso}">${text}</time> <span class="rel">(${relative(at, now)})</span></span>`;
}
