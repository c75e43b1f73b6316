/**
 * Links: pagination (page counts and `_links` whose hrefs reproduce the client's query), the
 * paths of resources, and a list page's body.
 */

/** Where a resource's links point: its organisation and the API's path as the client sees it. */
export interface ViewContext {
  org: string;
  apiBase: string;
}

/** `a/b` with each segment URL-encoded. */
export const pathOf = (...segments: Array<string | number>) => segments.map((s) => encodeURIComponent(String(s))).join('/');

/** The href of an environment of `at.org`. */
export const environmentHref = (at: ViewContext, name: string) => `${at.apiBase}/environments/${pathOf(at.org, name)}`;

/** The href of a trail of `at.org`. */
export const trailHref = (at: ViewContext, flow: string, trail: string) => `${at.apiBase}/trails/${pathOf(at.org, flow, trail)}`;

export interface PageLinks {
  self: { href: string };
  first: { href: string } | null;
  prev: { href: string } | null;
  next: { href: string } | null;
  last: { href: string } | null;
}

/** Number of pages for `total` items; 0 when there is nothing or `perPage` is 0. */
export const pageCount = (total: number, perPage: number) => (perPage > 0 ? Math.ceil(total / perPage) : 0);

/**
 * Links for a page. Each href is the request's own path and query with only `page` changed, so
 * following `next` repeats the same filters and sort.
 */
export function pageLinks(originalUrl: string, page: number, totalPages: number): PageLinks {
  const url = new URL(originalUrl, 'http://x');
  const self = { href: url.pathname + url.search };
  if (totalPages === 0) return { self, first: null, prev: null, next: null, last: null };
  // The query around `page`, serialised once: the first `page` keeps its place and any other is
  // dropped, as URLSearchParams.set would do, without setting and serialising once per link.
  const entries = [...url.searchParams];
  const at = entries.findIndex(([key]) => key === 'page');
  const before = String(new URLSearchParams(at < 0 ? entries : entries.slice(0, at)));
  const after = at < 0 ? '' : String(new URLSearchParams(entries.slice(at + 1).filter(([key]) => key !== 'page')));
  const head = `${url.pathname}?${before}${before ? '&' : ''}page=`;
  const tail = after ? `&${after}` : '';
  const to = (n: number) => ({ href: `${head}${n}${tail}` });
  return {
    self,
    first: to(1),
    prev: page > 1 ? to(Math.min(page - 1, totalPages)) : null,
    next: page < totalPages ? to(page + 1) : null,
    last: to(totalPages),
  };
}

/**
 * A page told in headers, for lists whose answer is the bare array (environment events, flows):
 * the figures, and an RFC 8288 `Link` to the other pages when there are several.
 */
export function pageHeaders(originalUrl: string, page: number, perPage: number, total: number): Record<string, string> {
  const totalPages = pageCount(total, perPage);
  const headers: Record<string, string> = {
    'X-Total-Count': String(total),
    'X-Per-Page': String(perPage),
    'X-Current-Page': String(page),
    'X-Total-Pages': String(totalPages),
  };
  if (totalPages > 1) {
    const links = pageLinks(originalUrl, page, totalPages);
    headers.Link = (['first', 'prev', 'next', 'last'] as const).flatMap((rel) => (links[rel] ? [`<${links[rel]!.href}>; rel="${rel}"`] : [])).join(', ');
  }
  return headers;
}

/** A list page's figures, as the deployment and environment lists answer them. */
export interface PageFigures {
  page: number;
  per_page: number;
  total_pages: number;
  total_count: number;
}

/**
 * A list page's body as JSON text: its figures, then the items under `key` (`itemsJson`, a JSON
 * array the store has already written, spliced in unparsed), then the page's `_links`.
 */
export function pageBody(figures: PageFigures, key: string, itemsJson: string, links: PageLinks): string {
  const head = JSON.stringify(figures);
  return `${head.slice(0, -1)},${JSON.stringify(key)}:${itemsJson},"_links":${JSON.stringify(links)}}`;
}

/** The request's path and query without the parameter `name`. */
export function withoutParam(originalUrl: string, name: string): string {
  const url = new URL(originalUrl, 'http://x');
  url.searchParams.delete(name);
  return url.pathname + url.search;
}

/**
 * Links for a page that starts at an item (`offset`) rather than at a page number, or that stopped
 * early (bounded by bytes): `next` continues at `nextOffset`; first, prev and last are page numbers.
 */
export function offsetPageLinks(originalUrl: string, page: number, totalPages: number, nextOffset: number | null): PageLinks {
  const paged = withoutParam(originalUrl, 'offset');
  const links = pageLinks(paged, page, totalPages);
  const next = new URL(withoutParam(paged, 'page'), 'http://x');
  next.searchParams.append('offset', String(nextOffset));
  const self = new URL(originalUrl, 'http://x');
  return { ...links, self: { href: self.pathname + self.search }, next: nextOffset === null ? null : { href: next.pathname + next.search } };
}
