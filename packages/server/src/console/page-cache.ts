/**
 * What the console's pages read, remembered until the store's next commit (`Store.committedVersion`,
 * SQLite), as tokens are (store/remembered.ts): for reads whose answer is a function of what is
 * stored alone, such as a verdict of compliance (the time only dates it). Every page asks one
 * cache, which `createConsole` makes and hands each page as `PageInput.cache`, under a name and
 * named fields (`cache.read('flow', { org, flow, page, perPage }, read)`), so that no two pages
 * can mean different things by one key. A store that cannot tell commits apart (PostgreSQL)
 * reads every time. The cache is bounded in entries and in bytes, the oldest dropped first; an
 * answer of null or undefined (nothing found) is asked again. Charts keep their drawing by their
 * figures in a `BoundedCache` of their own (charts.tsx).
 */

/**
 * Named fields as one string, the same whatever order they were written in: the names sorted,
 * each value as JSON (a number and its text are different keys; undefined is left out). Values
 * inside a field (a chart's figures) are written in their own order, which only decides whether
 * two equal ones share an entry.
 */
export function cacheKey(fields: object): string {
  let key = '';
  for (const name of Object.keys(fields).sort()) {
    const value = (fields as Record<string, unknown>)[name];
    if (value !== undefined) key += `${key ? ',' : ''}${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
  return `{${key}}`;
}

export interface CacheBounds {
  /** Answers kept at most. */
  entries: number;
  /** Their estimated size in memory at most (`estimatedBytes`); an answer larger than this is not kept. */
  bytes: number;
}

/** Values by key, at most `bounds` of them, the least recently read dropped first. */
export class BoundedCache<T> {
  readonly #kept = new Map<string, { value: T; bytes: number }>();
  #bytes = 0;
  constructor(private readonly bounds: CacheBounds) {}

  get(key: string): T | undefined {
    const found = this.#kept.get(key);
    if (!found) return undefined;
    // Read again: it moves to the newest end, dropped last.
    this.#kept.delete(key);
    this.#kept.set(key, found);
    return found.value;
  }

  set(key: string, value: T): void {
    const bytes = estimatedBytes(value);
    this.#drop(key);
    if (bytes > this.bounds.bytes) return;
    while (this.#kept.size > 0 && (this.#kept.size >= this.bounds.entries || this.#bytes + bytes > this.bounds.bytes))
      this.#drop(this.#kept.keys().next().value!);
    this.#kept.set(key, { value, bytes });
    this.#bytes += bytes;
  }

  clear(): void {
    this.#kept.clear();
    this.#bytes = 0;
  }

  #drop(key: string): void {
    this.#bytes -= this.#kept.get(key)?.bytes ?? 0;
    this.#kept.delete(key);
  }
}

export const defaultPageCacheBounds: CacheBounds = { entries: 256, bytes: 32 * 1024 * 1024 };

/** Plain data that names what a page read: the organisation's id, a flow's name, a page number... */
export type CacheKeyFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

export interface PageCache {
  /** Whether it keeps anything (not on a store that cannot tell commits apart): a page reads what only its keeping needs then only. */
  readonly keeps: boolean;
  /** `read()`'s answer, remembered under `name` and `fields` until the next commit. */
  read<T>(name: string, fields: CacheKeyFields, read: () => Promise<T>): Promise<T>;
  /**
   * `read()`'s value, remembered under `name` and `fields` until the next commit or until its
   * `until` (Unix seconds, exclusive), whichever comes first: for an answer that is a function of
   * what is stored and of the time `now` (a window that ends now, a time written as "3 min ago"),
   * whose reader knows until when the time leaves it as it is. `now` is the asking request's time;
   * an answer whose `until` is not after it is not kept (nor given to a request asking after it).
   */
  remember<T>(name: string, fields: CacheKeyFields, now: number, read: () => Promise<Lasting<T>>): Promise<T>;
}

/** A value and until when it holds (Unix seconds, exclusive). */
export interface Lasting<T> {
  value: T;
  until: number;
}

/** A cache whose answers last while `version()` stays the same; none is kept without `version`. */
export function createPageCache(version: (() => number) | undefined, bounds: CacheBounds = defaultPageCacheBounds): PageCache {
  if (!version) return { keeps: false, read: (_name, _fields, read) => read(), remember: async (_name, _fields, _now, read) => (await read()).value };
  let keptAt = -1;
  const kept = new BoundedCache<Lasting<unknown>>(bounds);
  // Reads under way since the last commit, by key: a request that asks for one shares it rather than reading the same again.
  const reading = new Map<string, Promise<Lasting<unknown>>>();
  const remember = async <T>(name: string, fields: CacheKeyFields, now: number, read: () => Promise<Lasting<T>>): Promise<T> => {
    const at = version();
    if (at !== keptAt) {
      kept.clear();
      reading.clear();
      keptAt = at;
    }
    const key = `${name} ${cacheKey(fields)}`;
    const found = kept.get(key);
    if (found !== undefined && now < found.until) return found.value as T;
    const pending = reading.get(key);
    if (pending) {
      const shared = await pending;
      if (now < shared.until) return shared.value as T;
    }
    const answer = read();
    reading.set(key, answer);
    try {
      const lasting = await answer;
      // Kept only if nothing was committed while it was read (else it may already be out of date).
      if (lasting.value !== null && lasting.value !== undefined && now < lasting.until && version() === keptAt) kept.set(key, lasting);
      return lasting.value;
    } finally {
      if (reading.get(key) === answer) reading.delete(key);
    }
  };
  return {
    keeps: true,
    remember,
    read: (name, fields, read) => remember(name, fields, Number.NEGATIVE_INFINITY, async () => ({ value: await read(), until: Number.POSITIVE_INFINITY })),
  };
}

/**
 * A rough size in memory of a page's answer: two bytes a character of text, eight a number and
 * a slot of an object, array, map or set, each object counted once. It bounds the cache; it is
 * no measurement.
 */
export function estimatedBytes(value: unknown): number {
  const seen = new Set<object>();
  const pending: unknown[] = [value];
  let bytes = 0;
  while (pending.length) {
    const item = pending.pop();
    if (typeof item === 'string') bytes += 16 + 2 * item.length;
    else if (typeof item !== 'object' || item === null) bytes += 8;
    else if (!seen.has(item)) {
      seen.add(item);
      if (ArrayBuffer.isView(item)) bytes += 16 + item.byteLength;
      else if (item instanceof Map) for (const [k, v] of item) pending.push(k, v);
      else if (item instanceof Set) for (const v of item) pending.push(v);
      else for (const [k, v] of Object.entries(item)) pending.push(k, v);
      bytes += 16;
    }
  }
  return bytes;
}
