/** Console URLs: each segment encoded, filters kept in the query string. */
/** Where links start: the console's path and the organisation (a `PageInput` is one). */
export interface LinkBase {
  base: string;
  org: { name: string };
}

/** `{base}/{org}/a/b` with each segment URL-encoded. */
export function orgHref(at: LinkBase, ...segments: Array<string | number>): string {
  // Pages build dozens of links: a plain loop, no arrays.
  let href = `${at.base}/${encodeURIComponent(at.org.name)}`;
  for (const segment of segments) href += `/${encodeURIComponent(String(segment))}`;
  return href;
}

/** The page of a flow. */
export const flowHref = (at: LinkBase, flow: string) => orgHref(at, 'flows', flow);

/** The page of a trail. */
export const trailPageHref = (at: LinkBase, flow: string, trail: string) => orgHref(at, 'flows', flow, 'trails', trail);

/** The page of an environment. */
export const environmentPageHref = (at: LinkBase, env: string) => orgHref(at, 'environments', env);

/**
 * The page of an artifact by its fingerprint: every report of it in the organisation, or only
 * those of `flow` (the API's `html_url`: `/{org}/flows/{flow}/artifacts/{fingerprint}`).
 */
export const artifactPageHref = (at: LinkBase, fingerprint: string, flow?: string) =>
  flow === undefined ? orgHref(at, 'artifacts', fingerprint) : orgHref(at, 'flows', flow, 'artifacts', fingerprint);

/** The search page's address for a value. */
export const searchHref = (at: LinkBase, value: string) => `${orgHref(at, 'search')}?q=${encodeURIComponent(value)}`;

/** `url` with `changes` applied to its query (undefined removes a parameter); `page` goes back to 1 unless set. */
export function withQuery(url: string, changes: Record<string, string | number | undefined>): string {
  const parsed = new URL(url, 'http://x');
  if (!('page' in changes)) parsed.searchParams.delete('page');
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) parsed.searchParams.delete(key);
    else parsed.searchParams.set(key, String(value));
  }
  return parsed.pathname + parsed.search;
}

/**
 * A whole number from the query between `min` and `max`; `fallback` when absent or not one.
 * Pages are forgiving where the API answers 400: a hand-edited URL still shows something.
 */
export function queryNumber(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  const value = raw === null ? NaN : Number(raw);
  return Number.isInteger(value) && value >= min && value <= max ? value : fallback;
}

/**
 * Only `http:` and `https:` URLs become links; anything else (`javascript:`, `data:`) stays text.
 * Evidence carries URLs its sender chose.
 */
export function safeUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
