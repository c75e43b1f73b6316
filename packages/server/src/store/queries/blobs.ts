/** Content-addressed bytes (attachments, templates), stored once per content. */
import { createHash } from 'node:crypto';
import { insertChunks, isSqlite, type Db } from '../database.ts';
import { compiledOnce } from '../compiled-once.ts';

/** The address of bytes in the blob store: their SHA-256, in hex. */
export const blobAddress = (content: Uint8Array) => createHash('sha256').update(content).digest('hex');

/**
 * Stores bytes once under their SHA-256; returns the address. A caller may hash them before its
 * transaction (`blobAddress`), so that hashing does not hold the writer.
 */
export async function putBlob(db: Db, content: Uint8Array, at: number, sha256 = blobAddress(content)): Promise<string> {
  await putBlobs(db, [{ sha256, content, at }]);
  return sha256;
}

/**
 * Stores several contents under their addresses (each content once), in address order: two
 * transactions storing the same new contents wait for each other instead of deadlocking.
 *
 * PostgreSQL takes them in one statement (one round trip). SQLite takes one statement each: it
 * copies every bound blob, and one statement binding a batch's attachments at once (6MB for 64 of
 * 100KB) made the writer thread's allocator map fresh memory, and fault it in, for every batch;
 * one at a time, each copy reuses the last one's memory.
 */
export async function putBlobs(db: Db, blobs: Array<{ sha256: string; content: Uint8Array; at: number }>): Promise<void> {
  const distinct = [...new Map(blobs.map((b) => [b.sha256, b])).values()].sort((a, b) => (a.sha256 < b.sha256 ? -1 : a.sha256 > b.sha256 ? 1 : 0));
  const rows = distinct.map((b) => ({ sha256: b.sha256, size: b.content.byteLength, content: b.content, at: b.at }));
  if (!isSqlite(db)) {
    for (const chunk of insertChunks(rows)) await insertBlobs(db, { blobs: chunk });
    return;
  }
  for (const row of rows) await insertBlobs(db, { blobs: [row] });
}

const insertBlobs = compiledOnce((db, v: { blobs: Array<{ sha256: string; size: number; content: Uint8Array; at: number }> }) =>
  db
    .insertInto('blobs')
    .values(v.blobs.map((b) => ({ sha256: b.sha256, size: b.size, content: b.content, created_at: b.at })))
    .onConflict((c) => c.column('sha256').doNothing()),
);

export async function getBlob(db: Db, sha256: string): Promise<{ sha256: string; size: number; content: Uint8Array } | undefined> {
  const row = await db.selectFrom('blobs').select(['sha256', 'size', 'content']).where('sha256', '=', sha256).executeTakeFirst();
  return row ? { ...row, size: Number(row.size) } : undefined;
}

export const reads = { getBlob };
export const writes = { putBlob };
