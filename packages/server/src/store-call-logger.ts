/**
 * What a request did in the store, at debug level: each store call's name, how long it took,
 * whether it failed, and the id of the request that made it. The app wraps the store this way
 * only when its logger takes debug lines, so at info level a store call costs nothing more.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from './logger.ts';
import type { Queries, Store } from './store/types.ts';

export interface StoreCallLogger {
  /** The store whose calls are logged. */
  store: Store;
  /** Runs `work` as request `requestId`: the store calls it makes are logged with that id. */
  within<T>(requestId: string, work: () => T): T;
}

/** Store members that are not calls a request makes. */
const notCalls = new Set(['close', 'backup', 'dialect', 'onWriteBatch', 'poolUse']);

export function storeCallLogger(store: Store, logger: Logger & Required<Pick<Logger, 'debug'>>): StoreCallLogger {
  const requests = new AsyncLocalStorage<string>();

  function logged<A extends unknown[], R>(name: string, inTransaction: boolean, call: (...args: A) => R) {
    return (...args: A): R => {
      const started = performance.now();
      const done = (error?: unknown) =>
        logger.debug({
          msg: 'store call',
          call: name,
          ...(inTransaction ? { in_transaction: true } : {}),
          duration_ms: Math.round((performance.now() - started) * 100) / 100,
          ...(error === undefined ? {} : { error: String(error) }),
          request_id: requests.getStore(),
        });
      let result: R;
      try {
        result = call(...args);
      } catch (error) {
        done(error);
        throw error;
      }
      if (!(result instanceof Promise)) {
        done();
        return result;
      }
      return result.then(
        (value: unknown) => (done(), value),
        (error: unknown) => {
          done(error);
          throw error;
        },
      ) as R;
    };
  }

  function wrapped<T extends object>(calls: T, inTransaction: boolean): T {
    const out: Record<string, unknown> = { ...(calls as Record<string, unknown>) };
    for (const [name, value] of Object.entries(calls)) {
      if (typeof value === 'function' && !notCalls.has(name)) out[name] = logged(name, inTransaction, value as (...args: unknown[]) => unknown);
    }
    return out as T;
  }

  const calls = wrapped(store, false);
  return {
    store: {
      ...calls,
      transaction: logged('transaction', false, (work: (tx: Queries) => Promise<unknown>) =>
        store.transaction((tx) => work(wrapped(tx, true))),
      ) as Store['transaction'],
    },
    within: (requestId, work) => requests.run(requestId, work),
  };
}
