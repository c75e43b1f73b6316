/**
 * Connections a pool's primary handed to a worker that died before taking them. Node's cluster
 * accepts each connection in the primary and hands it to a worker over the IPC channel (a
 * `newconn` message with the socket), keeping its own descriptor until the worker answers that
 * it took it. A worker that dies first never answers: the connection stayed open in the
 * primary, unread, until the client gave up, and its descriptor with it. Here the primary keeps
 * the connections in flight to each worker and closes them once the worker has exited and its
 * channel has closed (the child's `close`: no answer can come after that; its `disconnect` never
 * comes while a handle it was sent waits for its acknowledgement): the client sees its
 * connection end and can try again.
 *
 * This reads cluster's own messages (`cmd: 'NODE_CLUSTER'`, `seq` and its `ack`), which Node does
 * not document; if they ever change, nothing is tracked and nothing is closed, as before
 * (test/hostile/worker-pool.test.ts says so).
 */
import type { ChildProcess } from 'node:child_process';
import type { Worker } from 'node:cluster';

interface ClusterMessage {
  cmd?: unknown;
  act?: unknown;
  seq?: unknown;
  ack?: unknown;
}

interface Closable {
  close(): void;
}

const isClusterMessage = (message: unknown): message is ClusterMessage =>
  typeof message === 'object' && message !== null && (message as ClusterMessage).cmd === 'NODE_CLUSTER';

/** In the primary, for a worker just forked: the connections handed to it and not yet taken are closed when it is gone. */
export function closeHandoffsWhenGone(worker: Worker): void {
  const child: ChildProcess = worker.process;
  const inFlight = new Map<number, Closable>();
  const send = child.send;
  child.send = function (this: ChildProcess, message: unknown, handle?: unknown, ...rest: unknown[]) {
    if (isClusterMessage(message) && message.act === 'newconn' && typeof message.seq === 'number' && handle) inFlight.set(message.seq, handle as Closable);
    return (send as (...args: unknown[]) => boolean).call(this, message, handle, ...rest);
  } as ChildProcess['send'];
  child.on('internalMessage', (message: unknown) => {
    if (isClusterMessage(message) && typeof message.ack === 'number') inFlight.delete(message.ack);
  });
  child.once('close', () => {
    for (const handle of inFlight.values()) handle.close();
    inFlight.clear();
  });
}
