/**
 * Leaves of append-only records, remembered per database (its adapter, which its transactions
 * share): a committed record's leaf never changes, so once found it need not be read again (a
 * process's own memory; every process finds its own). Bounded, the least recently used dropped
 * first. Filled only by reads outside a transaction: what a transaction reads of its own writes
 * may still roll back.
 */
import type { Db } from './database.ts';

export interface LeafMemory {
  /** The leaf remembered under `key` for this database, if any. */
  get(db: Db, key: string): number | undefined;
  /** Remembers `leaf` under `key`, unless `db` is a transaction. */
  remember(db: Db, key: string, leaf: number): void;
}

/** A memory of at most `max` leaves per database. */
export function leafMemory(max: number): LeafMemory {
  const memories = new WeakMap<object, Map<string, number>>();
  const memoryOf = (db: Db) => {
    const owner = db.getExecutor().adapter;
    return memories.get(owner) ?? memories.set(owner, new Map()).get(owner)!;
  };
  return {
    get(db, key) {
      const memory = memoryOf(db);
      const leaf = memory.get(key);
      if (leaf !== undefined) {
        // Moved to the end: the first key is always the least recently used.
        memory.delete(key);
        memory.set(key, leaf);
      }
      return leaf;
    },
    remember(db, key, leaf) {
      if (db.isTransaction) return;
      const memory = memoryOf(db);
      memory.delete(key);
      if (memory.size >= max) memory.delete(memory.keys().next().value!);
      memory.set(key, leaf);
    },
  };
}
