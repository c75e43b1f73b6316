/**
 * The store as plugins see it: every query but the token administration (`insertToken`,
 * `revokeToken`, which only the command line and the store's owner use) and the store's
 * lifecycle (`close`, `backup`). Removed from the object itself, not only from its type, so that
 * a plugin cannot reach them with a cast; a transaction's queries likewise.
 */
import type { Queries, Store } from './store/types.ts';

/** What plugins never get. */
const withheld = ['insertToken', 'revokeToken', 'close', 'backup'] as const;
type Withheld = (typeof withheld)[number];

export type PluginQueries = Omit<Queries, Withheld>;

export interface PluginStore extends Omit<Store, Withheld | 'transaction'> {
  /** Runs `work` in one transaction: all of its writes commit together or not at all. */
  transaction<T>(work: (tx: PluginQueries) => Promise<T>): Promise<T>;
}

function withoutWithheld<T extends object>(methods: T): T {
  const view: Record<string, unknown> = { ...(methods as Record<string, unknown>) };
  for (const name of withheld) delete view[name];
  return view as T;
}

/** One view per store, so that what a plugin keeps per store (a WeakMap) is kept per store. */
const views = new WeakMap<Store, PluginStore>();

export function pluginStore(store: Store): PluginStore {
  let view = views.get(store);
  if (!view) {
    view = { ...withoutWithheld(store), transaction: (work) => store.transaction((tx) => work(withoutWithheld(tx))) };
    views.set(store, view);
  }
  return view;
}
