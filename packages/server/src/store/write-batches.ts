/**
 * What the store tells about its writes and connections, for the metrics (metrics.ts): timings
 * of each committed write batch and, on PostgreSQL, the pool's use. Counts and times only, never
 * an organisation's, flow's or trail's name.
 */

/** One committed batch of `batchedWrites` (group-commit.ts). */
export interface BatchTiming {
  /** Inputs written together. */
  size: number;
  /** Seconds each input waited, from being queued to its batch starting. */
  waits: number[];
  /** Seconds from the batch's start to its COMMIT returning. */
  seconds: number;
  /** Seconds of the COMMIT alone (SQLite's fsync; PostgreSQL's WAL flush). */
  commitSeconds: number;
}

/**
 * Which writer wrote the batch: `attestations` or `artifacts` (each stored together: SQLite's
 * writer thread, PostgreSQL's batched writes) or `transactions` (SQLite's group commit of the
 * store's other transactions).
 */
export type BatchWriter = 'attestations' | 'artifacts' | 'transactions';

export interface WriteBatch extends BatchTiming {
  writer: BatchWriter;
}

export type WriteBatchListener = (batch: WriteBatch) => void;

/** A PostgreSQL pool's connections now (`pg.Pool`'s counts). */
export interface PoolUse {
  /** Connections open, idle or checked out. */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  /** Most connections the pool opens. */
  max: number;
}

/** A store's listeners of committed write batches: `emit` from the writers, `subscribe` for the metrics. */
export function writeBatchListeners() {
  const listeners = new Set<WriteBatchListener>();
  return {
    /** The writer's `afterCommit` hook, telling every listener. */
    emitter: (writer: BatchWriter) => (batch: BatchTiming) => {
      if (!listeners.size) return;
      for (const listener of listeners) listener({ writer, ...batch });
    },
    /** Calls `listener` after each committed batch; returns the function that stops it. */
    subscribe: (listener: WriteBatchListener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
