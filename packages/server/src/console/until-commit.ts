/**
 * What a page read, remembered per store until the store's next commit (`Store.committedVersion`,
 * SQLite): for reads whose answer is a function of what is stored alone, such as a verdict of
 * compliance (the time only dates it). A store that cannot tell commits apart (PostgreSQL) reads
 * every time. At most `limit` answers per store, the oldest dropped first.
 */
import type { Store } from '../store/index.ts';

export function untilCommit<K, T>(read: (store: Store, key: K) => Promise<T>, limit: number): (store: Store, key: K) => Promise<T> {
  const kept = new WeakMap<Store, { at: number; answers: Map<string, T> }>();
  return async (store, key) => {
    const version = store.committedVersion;
    if (!version) return read(store, key);
    const at = version();
    let memory = kept.get(store);
    if (!memory || memory.at !== at) kept.set(store, (memory = { at, answers: new Map() }));
    const name = JSON.stringify(key);
    const known = memory.answers.get(name);
    if (known !== undefined) return known;
    const answer = await read(store, key);
    // Kept only if nothing was committed while it was read (else it may already be out of date).
    if (version() === at && memory === kept.get(store)) {
      if (memory.answers.size >= limit) memory.answers.delete(memory.answers.keys().next().value!);
      memory.answers.set(name, answer);
    }
    return answer;
  };
}
