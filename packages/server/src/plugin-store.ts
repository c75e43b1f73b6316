/**
 * The part of the store each plugin gets: the members it declares beside its handler
 * (`definePlugin({ operation, store: [...], transaction: [...], handler })`) and nothing else.
 * `createRouter` builds each plugin's part once, copying only the declared members onto a new
 * object, so that a cast cannot reach the rest; a transaction's queries likewise. The token
 * administration (`insertToken`, `revokeToken`, which only the command line and the store's owner
 * use) and the store's lifecycle (`close`, `backup`) cannot be declared at all.
 */
import { readQueries, writeQueries } from './store/queries/index.ts';
import type { Queries, Store } from './store/types.ts';

/** What plugins never get. */
const withheld = ['insertToken', 'revokeToken', 'close', 'backup'] as const;
type Withheld = (typeof withheld)[number];

/** The store's members besides its queries that a plugin may declare in `store`. */
const storeMembers = ['dialect', 'logSigning', 'makeCheckpoints', 'onWriteBatch', 'poolUse', 'committedVersion'] as const satisfies readonly (keyof Store)[];

/** What a plugin may declare in `transaction`: the queries it runs inside `store.transaction`. */
export type PluginQueryKey = Exclude<keyof Queries, Withheld>;
/** What a plugin may declare in `store`: a query, or `dialect`, `logSigning`, ... */
export type PluginStoreKey = PluginQueryKey | (typeof storeMembers)[number];

// Every member of Store is a query, a member above, withheld or `transaction`: a new one must be sorted here.
const everyMemberSorted: [Exclude<keyof Store, PluginStoreKey | Withheld | 'transaction'>] extends [never] ? true : never = true;
void everyMemberSorted;

/** What a plugin declares of the store: the handler's `store` has these and nothing else. */
export interface StoreDeclaration<S extends PluginStoreKey = PluginStoreKey, T extends PluginQueryKey = PluginQueryKey> {
  /** The store's members the handler uses outside transactions. */
  store?: readonly S[];
  /** The queries the handler runs inside `store.transaction`; declaring any gives it `store.transaction`. */
  transaction?: readonly T[];
}

/** Raised at start-up when a plugin declares what plugins never get, or what is not in a store. */
export class StoreDeclarationError extends Error {
  override readonly name = 'StoreDeclarationError';
  readonly code = 'TRAILPROOF_STORE_DECLARATION';
}

const queries = new Set(Object.keys({ ...readQueries, ...writeQueries }));
const members = new Set<string>(storeMembers);

function checked(id: string, names: readonly string[], where: 'store' | 'transaction'): readonly string[] {
  for (const name of names) {
    if ((withheld as readonly string[]).includes(name)) throw new StoreDeclarationError(`Plugin '${id}' declares '${name}', which plugins never get`);
    if (!queries.has(name) && !(where === 'store' && members.has(name)))
      throw new StoreDeclarationError(`Plugin '${id}' declares '${name}' in its ${where}, which is no ${where === 'store' ? 'member of the store' : 'query'}`);
  }
  return names;
}

/** A new object with only `names` of `from` (those it has: `logSigning` is on a serving store only). */
function pick(from: object, names: readonly string[]): Record<string, unknown> {
  const part: Record<string, unknown> = {};
  for (const name of names) if (name in from) part[name] = (from as Record<string, unknown>)[name];
  return part;
}

/** The part of `store` that plugin `id` declared; throws `StoreDeclarationError` on a name it may not declare. */
export function storePart(store: Store, id: string, declared: StoreDeclaration): object {
  const part = pick(store, checked(id, declared.store ?? [], 'store'));
  const inTransaction = checked(id, declared.transaction ?? [], 'transaction');
  if (inTransaction.length) part.transaction = <R>(work: (tx: object) => Promise<R>) => store.transaction((tx) => work(pick(tx, inTransaction)));
  return part;
}
