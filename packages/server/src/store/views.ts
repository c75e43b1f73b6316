/**
 * How a list query writes its page: its rows to the JSON text of the API's items, by a serialiser
 * that the HTTP side owns (http/views/). A view names the serialiser by module and export instead
 * of holding the function, so that a reader thread can load it too: the page is written where its
 * rows are read, and only a string crosses to the event loop (docs/internals.md).
 */

/** A serialiser of rows, with what it needs besides them (`context`: the organisation, the API's base path). */
export type Serialiser<Row, Context> = (rows: readonly Row[], context: Context) => string;

export interface ItemsView<Row> {
  /** URL of the module that exports the serialiser. */
  readonly module: string;
  /** Its export name. */
  readonly name: string;
  readonly context: unknown;
  /** Never set: ties the view to the rows its serialiser takes, for the type checker only. */
  readonly rows?: (rows: readonly Row[]) => void;
}

/** Serialisers by module and name: those this thread has made views of, and those it has loaded. */
const known = new Map<string, Map<string, Serialiser<never, never>>>();

const remember = (module: string, name: string, serialise: Serialiser<never, never>) => {
  const exports = known.get(module) ?? known.set(module, new Map()).get(module)!;
  exports.set(name, serialise);
};

/** A view of `serialise`, an export (by its own name) of the module at `module` (the caller's `import.meta.url`). */
export function itemsView<Row, Context>(module: string, serialise: Serialiser<Row, Context>, context: Context): ItemsView<Row> {
  remember(module, serialise.name, serialise as Serialiser<never, never>);
  return { module, name: serialise.name, context };
}

/**
 * The rows written by the view's serialiser. Synchronous once the serialiser is known on this
 * thread (it made the view, or loaded the module before), so that a list on the event loop's own
 * connection does not yield for it.
 */
export function writeItems<Row>(view: ItemsView<Row>, rows: readonly Row[]): string | Promise<string> {
  const serialise = known.get(view.module)?.get(view.name) as Serialiser<Row, unknown> | undefined;
  if (serialise) return serialise(rows, view.context);
  return import(view.module).then((exports: Record<string, unknown>) => {
    const loaded = exports[view.name];
    if (typeof loaded !== 'function') throw new Error(`${view.module} exports no serialiser named ${view.name}`);
    remember(view.module, view.name, loaded as Serialiser<never, never>);
    return (loaded as Serialiser<Row, unknown>)(rows, view.context);
  });
}
