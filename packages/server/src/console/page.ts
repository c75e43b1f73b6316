/**
 * A console page is a plain value, like the API's plugins: the path it answers under the
 * console's prefix (always starting `/:org`) and a function from what the request asks to what
 * the page shows. `createConsole` signs the person in, checks the organisation and wraps the
 * result in the layout; a page never sees the session or the token, only the role it gives.
 */
import type { Readable } from 'node:stream';
import type { VNode } from 'preact';
import type { Store } from '../store/index.ts';
import type { PageCache } from './page-cache.ts';
import type { Role } from './roles.ts';

/** What a page receives. */
export interface PageInput {
  store: Store;
  /** The signed-in organisation, which is the one in the path (another's answers 404 before any page runs). */
  org: { id: number; name: string };
  /** The signed-in role: a page offers the forms it allows (the action checks it again). */
  role: Role;
  /** The path's parameters, decoded (`org` included). */
  params: Record<string, string>;
  /** The query string: filters, sort and paging, named as in the API. */
  query: URLSearchParams;
  /** What pages read, remembered until the next commit under a name and named fields (page-cache.ts). */
  cache: PageCache;
  /** Request time, Unix epoch seconds. */
  now: number;
  /** The console's path as the browser sees it (`/ui`, or under an embedding app's mount). */
  base: string;
  /** The request's path and query as the browser sent them (for paging and sort links). */
  url: string;
  /** The API's URL as the browser sees it (`http://host/api/v2`), for the curl hints of empty states. */
  apiBase: string;
}

/** A page's answer: HTML content for the layout, a file to download, or another console page to go to (303: a search with one match). */
export type PageResult =
  /**
   * `until`: for a page that is `remembered`, the time (Unix seconds, exclusive) until which the
   * same request would show the same, as long as nothing is committed, but for the "how long ago"
   * of the times it writes with `Time` or `timeMarkup` (noted on their own, time.tsx
   * `notingTimes`); Infinity when nothing else it shows moves with the time; not remembered without it.
   */
  | { title: string; content: VNode; status?: number; until?: number }
  | { download: { bytes: Uint8Array; name: string; sha256: string } }
  /** A file written while it is sent (an audit package): its size costs no memory. */
  | { file: { stream: Readable; name: string; contentType: string } }
  | { redirect: string };

export interface Page {
  /** Under the console's prefix, in @koa/router's syntax: `/:org/flows/:flow`. */
  path: string;
  /** The least role that may see the page; a reader's by default. */
  role?: Role;
  /**
   * Whether the page's HTML is remembered (page-cache.ts `remember`): until the next commit or the
   * `until` its answer names, whichever comes first, for the same address, organisation, viewer and
   * role. Only for a page that is a function of those, of what is stored and of the time, that
   * writes times as `Time` or `timeMarkup` do, and that names in `until` when anything else it
   * shows moves with the time (a window ending now, a time written to the minute).
   */
  remembered?: boolean;
  render(input: PageInput): Promise<PageResult>;
}

/** Identity, for type inference at the definition site. */
export const definePage = (page: Page): Page => page;
