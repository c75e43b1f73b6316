/** A store that records the name of every call made through it, for tests that bound how many statements a read makes. */
export function countingStore<T extends object>(store: T): { store: T; calls: string[] } {
  const calls: string[] = [];
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return value.apply(target, args);
      };
    },
  });
  return { store: counted, calls };
}
