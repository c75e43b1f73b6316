import { sql } from 'kysely';
import { type Builder } from './builder.ts';

/**
 * PostgreSQL compresses large values with pglz by default: on attachments, 3-4 ms of the
 * backend's CPU per 100KB (measured, and as long again when the content does not compress),
 * most of what storing an attestation cost. lz4 compresses about as well at a fraction of the
 * cost; a server built without it keeps attachments uncompressed instead. Values stored before
 * keep their compression (both read back the same).
 */
export const m007_blob_compression: Builder = async (db, dialect) => {
  if (dialect !== 'postgres') return;
  await sql`do $$ begin
    alter table blobs alter column content set compression lz4;
  exception when feature_not_supported or invalid_parameter_value then
    alter table blobs alter column content set storage external;
  end $$`.execute(db);
};
