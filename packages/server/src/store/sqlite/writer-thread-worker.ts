/**
 * The writer thread's side (see writer-thread.ts): its own connection to the file, attestations
 * stored in batches (`batchedWrites`, as on PostgreSQL), and the procedures it may run. Jobs
 * arrive as messages with plain values; each is answered once the COMMIT of its batch returned.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { asBuffer } from '../../support/buffers.ts';
import { batchedWrites } from '../batched-writes.ts';
import { openSqliteWriter, type SqliteOptions } from './open.ts';
import { appendArtifacts } from '../queries/artifacts.ts';
import { appendAttestations } from '../queries/attestations.ts';
import { batchedPost, toErrorShape, unbatched, type MessageBatch } from './threads.ts';
import { lockedDriver, turns, type FromWriter, type ToWriter, type WriterProcedures } from './writer-thread.ts';

const { file, synchronous, maxSizeBytes, walAutocheckpoint } = workerData as {
  file: string;
  synchronous: SqliteOptions['synchronous'];
  maxSizeBytes: number | undefined;
  walAutocheckpoint: number | null;
};
const port = parentPort!;
// The answers of one turn go out together, as the jobs come (threads.ts, batchedPost).
const answers = batchedPost((message) => port.postMessage(message));
const post = (message: FromWriter) => answers.post(message);

// Batches and the main thread's pauses take turns on one lock.
const lock = turns();
const { db, raw } = openSqliteWriter(file, { synchronous, maxSizeBytes, wrapDriver: (driver) => lockedDriver(driver, lock) });
if (walAutocheckpoint) raw.pragma(`wal_autocheckpoint = ${walAutocheckpoint}`);
const attestations = batchedWrites(db, appendAttestations, { afterCommit: (batch) => post({ kind: 'committed', writer: 'attestations', batch }) });
// Artifacts as attestations: those that arrive together share a transaction, a chain append and a COMMIT.
const artifacts = batchedWrites(db, appendArtifacts, { afterCommit: (batch) => post({ kind: 'committed', writer: 'artifacts', batch }) });

const procedures: WriterProcedures = {
  appendAttestation: (input) =>
    attestations.write({
      ...input,
      attachment: input.attachment ? { ...input.attachment, content: asBuffer(input.attachment.content) } : null,
    }),
  appendArtifact: (input) => artifacts.write(input),
};

let running = 0;
let closing = false;
const releases: Array<() => void> = [];

async function close() {
  if (running) return;
  await db.destroy();
  answers.flush();
  port.close();
}

port.on('message', (received: ToWriter | MessageBatch) => {
  for (const message of unbatched(received)) handle(message);
});

function handle(message: ToWriter) {
  switch (message.kind) {
    case 'run': {
      running++;
      (procedures[message.procedure] as (...args: unknown[]) => Promise<unknown>)(...message.args)
        .then(
          (value) => post({ kind: 'done', id: message.id, value }),
          (error) => post({ kind: 'failed', id: message.id, error: toErrorShape(error) }),
        )
        .finally(() => {
          running--;
          if (closing) void close();
        });
      return;
    }
    case 'pause':
      void lock().then((release) => {
        releases.push(release);
        post({ kind: 'paused', id: message.id });
      });
      return;
    case 'resume':
      releases.shift()?.();
      return;
    case 'ping':
      post({ kind: 'done', id: message.id, value: null });
      return;
    case 'close':
      closing = true;
      void close();
      return;
  }
}

process.on('unhandledRejection', () => {
  answers.flush();
  port.postMessage({ kind: 'fatal' } satisfies FromWriter);
});
