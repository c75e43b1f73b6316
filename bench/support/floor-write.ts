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
 * - PostgreSQL: the same table with the server's column settings (lz4, or no compression where
 *   the build has no lz4: migration 0007), the attachments that arrive together written in
 *   batches as the server writes its attestations (one batch at a time per process, one
 *   multi-row INSERT each), answered after its commit (PostgreSQL's defaults: synchronous_commit
 *   on).
 *
 *   node --import tsx bench/support/floor-write.ts FILE               SQLite
 *   node --import tsx bench/support/floor-write.ts postgres URL       PostgreSQL
 *
 * Prints {"msg":"listening","url":...}.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import Koa from 'koa';
import pg from 'pg';
import { startCheckpointer, walAutocheckpoint } from '../../packages/server/src/store/checkpoint.ts';
import { newDatabasePageSize } from '../../packages/server/src/store/sqlite.ts';
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
  const worker = new Worker(workerSource, { eval: true, workerData: { file, module: createRequire(import.meta.url).resolve('better-sqlite3'), walAutocheckpoint } });
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
 * PostgreSQL, as the server writes: the attachments arriving while one batch is being written wait
 * and go together in the next (from the next turn of the event loop, at most 64, one batch at a
 * time per process, as its batchedWrites), in one multi-row INSERT in address order, as its
 * putBlobs; answered after that statement's commit.
 */
async function postgresStore(url: string): Promise<BlobStore> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // Two processes start on one database: one creates the table while the other waits (an
  // advisory lock belongs to a session, so all of it on one connection).
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock(7301)');
    await client.query('create table if not exists blobs (sha256 text primary key, size integer not null, content bytea not null, created_at double precision not null)');
    await client.query(`do $$ begin
      alter table blobs alter column content set compression lz4;
    exception when feature_not_supported or invalid_parameter_value then
      alter table blobs alter column content set storage external;
    end $$`);
    await client.query('select pg_advisory_unlock(7301)');
  } finally {
    client.release();
  }
  let queue: Array<{ sha256: string; bytes: Buffer; resolve: () => void; reject: (error: unknown) => void }> = [];
  let writing: Promise<void> | null = null;
  const writeBatches = async () => {
    try {
      while (queue.length) {
        const batch = queue.slice(0, 64);
        queue = queue.slice(batch.length);
        const rows = [...new Map(batch.map((job) => [job.sha256, job])).values()].sort((a, b) => (a.sha256 < b.sha256 ? -1 : a.sha256 > b.sha256 ? 1 : 0));
        const at = Date.now() / 1000;
        const values = rows.map((_, i) => `($${4 * i + 1}, $${4 * i + 2}, $${4 * i + 3}, $${4 * i + 4})`).join(', ');
        try {
          await pool.query(`insert into blobs (sha256, size, content, created_at) values ${values} on conflict do nothing`, rows.flatMap((r) => [r.sha256, r.bytes.length, r.bytes, at]));
          for (const job of batch) job.resolve();
        } catch (error) {
          for (const job of batch) job.reject(error);
        }
      }
    } finally {
      writing = null;
    }
  };
  return {
    store(bytes) {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      return new Promise((resolve, reject) => {
        queue.push({ sha256, bytes, resolve, reject });
        writing ??= new Promise<void>((started) => setImmediate(started)).then(writeBatches);
      });
    },
    close: () => pool.end(),
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
