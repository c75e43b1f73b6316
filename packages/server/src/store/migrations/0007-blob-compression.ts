import { sql } from 'kysely';
import type { Builder } from './builder.ts';

/**
 * PostgreSQL compresses large values with pglz by default, which costs the backend most of what
 * storing an attestation costs when the attachment does not compress. lz4 is many times faster and compresses text such as JUnit XML
 * nearly as well; a server built without lz4 keeps attachments uncompressed instead. Values
 * stored before keep their compression (both read back the same).
 */
export const m007_blob_compression: Builder = async (db, dialect) => {
  if (dialect !== 'postgres') return;
  await sql`do $$ begin
    alter table blobs alter column content set compression lz4;
  exception when feature_not_supported or invalid_parameter_value then
    alter table blobs alter column content set storage external;
  end $$`.execute(db);
};
