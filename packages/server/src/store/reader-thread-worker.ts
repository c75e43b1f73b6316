/**
 * A reader thread's side (see reader-threads.ts): a read-only connection of its own, and the list
 * queries of reader-procedures.ts run on it one message at a time. Arguments and results are
 * plain values (they cross threads by structured clone).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readerProcedures } from './reader-procedures.ts';
import type { FromReader, ToReader } from './reader-threads.ts';
import { openSqliteReader } from './sqlite.ts';
import { toErrorShape } from './threads.ts';

const port = parentPort!;
const post = (message: FromReader) => port.postMessage(message);
const reader = openSqliteReader((workerData as { file: string }).file).db;

port.on('message', (message: ToReader) => {
  if (message.kind === 'close') {
    void reader.destroy().then(() => port.close());
    return;
  }
  const procedure = readerProcedures[message.procedure] as (db: typeof reader, ...args: unknown[]) => Promise<unknown>;
  procedure(reader, ...message.args).then(
    (value) => post({ kind: 'done', id: message.id, value }),
    (error) => post({ kind: 'failed', id: message.id, error: toErrorShape(error) }),
  );
});
post({ kind: 'ready' });
