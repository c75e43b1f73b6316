/**
 * The write path's storage floor: the baseline's bare Koa handler (multipart.ts) that also stores
 * each attachment durably the least a store built as the server's can, and nothing else: no
 * router, auth, validation, attestation rows, hash chain or logging. What is left between the
 * server and this is the cost of being a store of evidence rather than of bytes.
 *
 * - SQLite: one `blobs` table keyed by SHA-256, in the server's file settings (WAL,
 *   synchronous=FULL, 16KB pages), written by a worker thread that puts the attachments arriving
 *   together into one transaction (group commit) and answers after its COMMIT, with the WAL
 *   checkpointed by another thread (the server's checkpointer).
 * - PostgreSQL: the server's own schema, batching and blob insert (its code, not a copy), the
 *   attachments that arrive together stored in one transaction per batch as the server stores
 *   its attestations, answered after its COMMIT (PostgreSQL's defaults: synchronous_commit on).
 *
 *   node --import tsx bench/support/floor-write.ts FILE               SQLite
 *   node --import tsx bench/support/floor-write.ts postgres URL       PostgreSQL
 *
 * Prints {"msg":"listening","url":...}.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { BetterSqlite3, sqliteDriver } from '@trailproof/server/testing';
import Koa from 'koa';
import {
  batchedWrites,
  blobAddress,
  migrate,
  newDatabasePageSize,
  openPostgres,
  putBlobs,
  startCheckpointer,
  walAutocheckpoint,
} from '@trailproof/server/internals';
import { created, parseAttestation } from './multipart.ts';

interface BlobStore {
  /** Resolves once the bytes are committed. */
  store(bytes: Buffer): Promise<void>;
  close(): Promise<void>;
}

// Plain JavaScript, evaluated in the SQLite writer worker (no TypeScript loader there).
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = FULL');
db.pragma('wal_autocheckpoint = ' + workerData.walAutocheckpoint);
const insert = db.prepare('insert or ignore into blobs (sha256, content, created_at) values (?, ?, ?)');
const storeAll = db.transaction((jobs) => {
  for (const job of jobs) insert.run(createHash('sha256').update(job.content).digest('hex'), job.content, Date.now() / 1000);
});
let pending = [];
parentPort.on('message', (job) => {
  if (pending.length === 0) setImmediate(flush);
  pending.push(job);
});
function flush() {
  const jobs = pending;
  pending = [];
  storeAll(jobs.map((job) => ({ content: Buffer.from(job.content.buffer, job.content.byteOffset, job.content.byteLength) })));
  parentPort.postMessage(jobs.map((job) => job.id));
}
`;

function sqliteStore(file: string): BlobStore {
  // The file, made as the server makes its own (store/sqlite.ts).
  const setup = new BetterSqlite3(file);
  if (setup.pragma('page_count', { simple: true }) === 0) setup.pragma(`page_size = ${newDatabasePageSize}`);
  setup.pragma('journal_mode = WAL');
  setup.exec('create table if not exists blobs (sha256 text primary key, content blob not null, created_at real not null)');
  const worker = new Worker(workerSource, { eval: true, workerData: { file, module: sqliteDriver.module, walAutocheckpoint } });
  // The WAL copied into the database file after each commit by the server's own checkpointer (a
  // connection on a thread of its own). Measured: without it, with SQLite's checkpoints inside the
  // writer's COMMITs, the floor's throughput is about a quarter lower.
  const checkpointer = startCheckpointer(setup, file)!;
  worker.on('error', (error) => {
    process.stderr.write(`floor-write: ${error.stack}\n`);
    process.exit(1);
  });
  const waiting = new Map<number, () => void>();
  worker.on('message', (ids: number[]) => {
    checkpointer.committed();
    for (const id of ids) {
      waiting.get(id)?.();
      waiting.delete(id);
    }
  });
  let nextId = 0;
  return {
    // A copy crosses to the worker, which takes it over.
    store(bytes) {
      const id = ++nextId;
      const content = new Uint8Array(bytes);
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        worker.postMessage({ id, content }, [content.buffer]);
      });
    },
    close: async () => {
      await worker.terminate();
    },
  };
}

/**
 * PostgreSQL, stored by the server's own code: its connection settings (openPostgres), its schema
 * (the migrations: the `blobs` table with its column settings, lz4 or none, 0007), its batching
 * (batchedWrites: what arrives while one batch is written goes in the next, at most 64, one batch
 * at a time per process, each in a transaction) and its blob insert (putBlobs: one multi-row
 * INSERT in address order); answered after the batch's COMMIT.
 */
async function postgresStore(url: string): Promise<BlobStore> {
  const { db } = openPostgres(url);
  // Two processes start on one database: the migrator's lock makes one wait for the other.
  await migrate(db, 'postgres');
  const blobs = batchedWrites(db, async (trx, inputs: Array<{ sha256: string; content: Uint8Array; at: number }>) => {
    await putBlobs(trx, inputs);
    return inputs.map(() => undefined);
  });
  return {
    store: (bytes) => blobs.write({ sha256: blobAddress(bytes), content: bytes, at: Date.now() / 1000 }),
    close: () => db.destroy(),
  };
}

const [first, second] = process.argv.slice(2);
if (!first) throw new Error('usage: floor-write.ts FILE | floor-write.ts postgres URL');
const blobs = first === 'postgres' && second ? await postgresStore(second) : sqliteStore(first);

const app = new Koa();
app.use(async (ctx) => {
  const { name, attachment } = await parseAttestation(ctx);
  if (attachment) await blobs.store(attachment);
  created(ctx, name);
});

const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }) + '\n');
});
process.on('SIGTERM', () => server.close(() => blobs.close().then(() => process.exit(0))));
