/** Table parts: a header that sorts by link (the query string), and a pager. */
import type { ComponentChildren } from 'preact';
import { withQuery } from '../links.ts';

/**
 * A column header linking to the same page sorted by `sortKey`: ascending first, the other way
 * when it is already the sort. The current order is said in words, not only by an arrow.
 */
export function SortHeader({
  url,
  sortKey,
  current,
  direction,
  children,
  numeric,
}: {
  url: string;
  sortKey: string;
  current: string;
  direction: 'asc' | 'desc';
  children: ComponentChildren;
  numeric?: boolean;
}) {
  const active = current === sortKey;
  const next = active && direction === 'asc' ? 'desc' : 'asc';
  const ariaSort = active ? (direction === 'asc' ? 'ascending' : 'descending') : undefined;
  return (
    <th class={numeric ? 'num' : undefined} aria-sort={ariaSort}>
      <a href={withQuery(url, { sort: sortKey, sort_direction: next })}>{children}</a>
      {active ? <span class="rel"> {direction === 'asc' ? '▲ ascending' : '▼ descending'}</span> : null}
    </th>
  );
}

/** Previous / next links and where this page sits; nothing when there is one page. Newer / older unless the list is in another order. */
export function Pager({
  url,
  page,
  perPage,
  total,
  previous = '← Newer',
  next = 'Older →',
}: {
  url: string;
  page: number;
  perPage: number;
  total: number;
  previous?: string;
  next?: string;
}) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? (
        <a href={withQuery(url, { page: page - 1 })} rel="prev">
          {previous}
        </a>
      ) : null}
      <span>
        Page {page} of {pages} ({total} in all)
      </span>
      {page < pages ? (
        <a href={withQuery(url, { page: page + 1 })} rel="next">
          {next}
        </a>
      ) : null}
    </nav>
  );
}
