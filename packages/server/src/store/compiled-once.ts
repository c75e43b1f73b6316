/**
 * Queries compiled once per shape. Kysely builds and compiles a query anew on each call, a
 * measurable part of a small query's cost at the list operations' rates. A statement's text
 * depends only on its shape (which values are present, how many there are in a list, and the
 * `options` that choose its form, such as a sort order), not on the values themselves.
 */
import { CompiledQuery, type Compilable } from 'kysely';
import type { Db } from './database.ts';

type Path = Array<string | number>;
interface Statement {
  sql: string;
  /** Per parameter: where its value is in `values`, or a constant of the query. */
  slots: Array<{ path: Path } | { value: unknown }>;
}

/** Statements kept per dialect (or Kysely instance) and query. */
const maxShapes = 256;

/** Objects and lists are walked; anything else (bytes included) is one value. */
const isNested = (v: unknown): v is object => v !== null && typeof v === 'object' && !ArrayBuffer.isView(v);

/** Lists and objects kept, every present value a 0: equal for values of the same shape. */
function shapeOf(value: unknown): string {
  if (value === undefined) return '-';
  if (!isNested(value)) return '0';
  if (Array.isArray(value)) return `[${value.map(shapeOf).join(',')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${JSON.stringify(k)}:${shapeOf(v)}`)
    .join(',')}}`;
}

/**
 * `build` runs once per dialect, shape and `options`, with a unique marker in place of each
 * value; the compiled statement remembers which value each parameter is, and later calls send
 * the same text with their own values. `build` may decide on `options` and on whether a value
 * is present (or a list's length), never on a value itself.
 */
export function compiledOnce<V extends object, R, O = undefined>(build: (db: Db, values: V, options: O) => Compilable<R>) {
  // Per adapter (one per Kysely instance, shared by its transactions): the text depends on the
  // dialect. A plugin could rewrite it per instance: then per instance (transactions are not cached).
  const cache = new WeakMap<object, Map<string, Statement>>();
  return async (db: Db, values: V, options?: O): Promise<R[]> => {
    const executor = db.getExecutor();
    const owner = executor.plugins.length ? db : executor.adapter;
    let byShape = cache.get(owner);
    if (!byShape) cache.set(owner, (byShape = new Map()));
    const key = `${JSON.stringify(options)} ${shapeOf(values)}`;
    let statement = byShape.get(key);
    if (!statement) {
      const markers = new Map<string, Path>();
      const mark = (v: unknown, path: Path): unknown => {
        if (v === undefined) return v;
        if (Array.isArray(v)) return v.map((item, i) => mark(item, [...path, i]));
        if (isNested(v)) return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, mark(item, [...path, k])]));
        const marker = `\u0000value:${markers.size}`;
        markers.set(marker, path);
        return marker;
      };
      const query = build(db, mark(values, []) as V, options as O).compile();
      const derived = query.parameters.find((p) => typeof p === 'string' && p.includes('\u0000value:') && !markers.has(p));
      if (derived !== undefined)
        throw new Error(`compiledOnce: a parameter is computed from a value (${JSON.stringify(derived)}); pass the computed value instead`);
      statement = {
        sql: query.sql,
        slots: query.parameters.map((p) => (typeof p === 'string' && markers.has(p) ? { path: markers.get(p)! } : { value: p })),
      };
      // Shapes a client chooses (lists of filters of any length) are many: keep a bounded few.
      if (byShape.size >= maxShapes) byShape.clear();
      byShape.set(key, statement);
    }
    const parameters = statement.slots.map((slot) => ('path' in slot ? slot.path.reduce<any>((v, k) => v[k], values) : slot.value));
    const result = await db.executeQuery<R>(CompiledQuery.raw(statement.sql, parameters));
    // The caller gets a copy of the rows, and the driver's array is emptied: on PostgreSQL, a link
    // of the chain between node-postgres and this await outlives the request in V8's old
    // generation, and the array it held kept every row of every list alive through the young
    // generation's collections until the next full one (see docs/internals.md).
    const rows = result.rows.slice();
    (result.rows as unknown[]).length = 0;
    return rows;
  };
}
