import { createHash } from 'node:crypto';
import type { Db } from './database.ts';

export interface OrganizationRow { id: number; name: string }

export async function ensureOrganization(db: Db, name: string, at: number): Promise<OrganizationRow> {
  await db.insertInto('organizations').values({ name, created_at: at }).onConflict((c) => c.column('name').doNothing()).execute();
  return db.selectFrom('organizations').select(['id', 'name']).where('name', '=', name).executeTakeFirstOrThrow();
}

export async function listOrganizations(db: Db): Promise<OrganizationRow[]> {
  return (await db.selectFrom('organizations').select(['id', 'name']).orderBy('name').execute()).map((r) => ({ id: Number(r.id), name: r.name }));
}

export function findOrganization(db: Db, name: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').select(['id', 'name']).where('name', '=', name).executeTakeFirst();
}

/** The address of bytes in the blob store: their SHA-256, in hex. */
export const blobAddress = (content: Uint8Array) => createHash('sha256').update(content).digest('hex');

/**
 * Stores bytes once under their SHA-256; returns the address. A caller may hash them before its
 * transaction (`blobAddress`), so that hashing does not hold the writer.
 */
export async function putBlob(db: Db, content: Uint8Array, at: number, sha256 = blobAddress(content)): Promise<string> {
  await db.insertInto('blobs').values({ sha256, size: content.byteLength, content, created_at: at })
    .onConflict((c) => c.column('sha256').doNothing()).execute();
  return sha256;
}

export async function getBlob(db: Db, sha256: string): Promise<{ sha256: string; size: number; content: Uint8Array } | undefined> {
  const row = await db.selectFrom('blobs').select(['sha256', 'size', 'content']).where('sha256', '=', sha256).executeTakeFirst();
  return row ? { ...row, size: Number(row.size) } : undefined;
}
