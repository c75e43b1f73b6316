/**
 * What a page read, remembered per store until the store's next commit (`Store.committedVersion`,
 * SQLite), as tokens are (store/remembered.ts): for reads whose answer is a function of what is
 * stored alone, such as a verdict of compliance (the time only dates it). A store that cannot tell
 * commits apart (PostgreSQL) reads every time. At most `limit` answers per store, the oldest
 * dropped first; an answer of null (nothing found) is asked again.
 */
import { rememberTokensUntilChange } from '../store/remembered.ts';
import type { Store } from '../store/index.ts';

export function untilCommit<K, T>(read: (store: Store, key: K) => Promise<T>, limit: number): (store: Store, key: K) => Promise<T> {
  const kept = new WeakMap<Store, (name: string) => Promise<T | undefined>>();
  return async (store, key) => {
    const version = store.committedVersion;
    if (!version) return read(store, key);
    let remembered = kept.get(store);
    if (!remembered) kept.set(store, (remembered = rememberTokensUntilChange((name) => read(store, JSON.parse(name) as K), version, limit)));
    return (await remembered(JSON.stringify(key))) as T;
  };
}
