/**
 * A reader thread's side (see reader-threads.ts): a read-only connection of its own, and the list
 * queries of reader-procedures.ts run on it one message at a time. Arguments and results are
 * plain values (they cross threads by structured clone).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readerProcedures } from './reader-procedures.ts';
import type { FromReader, ToReader } from './reader-threads.ts';
import { openSqliteReader } from './open.ts';
import { batchedPost, toErrorShape, unbatched, type MessageBatch } from './threads.ts';

const port = parentPort!;
// The answers of one turn go out together, as the jobs come (threads.ts, batchedPost).
const answers = batchedPost((message) => port.postMessage(message));
const post = (message: FromReader) => answers.post(message);
const { db: reader, raw } = openSqliteReader((workerData as { file: string }).file);
// Pages from the OS's page cache through a map, as the store's own read connection reads them
// (store.ts): a read() of each page not in the connection's cache cost most of an artifact read's
// statements at 1,000,000 artifacts.
raw.pragma('mmap_size = 2147418112');

port.on('message', (received: ToReader | MessageBatch) => {
  for (const message of unbatched(received)) {
    if (message.kind === 'close') {
      answers.flush();
      void reader.destroy().then(() => port.close());
      return;
    }
    const procedure = readerProcedures[message.procedure] as (db: typeof reader, ...args: unknown[]) => Promise<unknown>;
    procedure(reader, ...message.args).then(
      (value) => post({ kind: 'done', id: message.id, value }),
      (error) => post({ kind: 'failed', id: message.id, error: toErrorShape(error) }),
    );
  }
});
port.postMessage({ kind: 'ready' } satisfies FromReader);
