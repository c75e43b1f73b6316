import { sql } from 'kysely';
import type { Builder } from './builder.ts';

/**
 * An index of an organisation's artifacts by name (`filename`), for the console's search by the
 * start of a name: a prefix is a range of it. PostgreSQL orders text by the database's collation,
 * which may compare punctuation last or not at all, so there the index (and the query) compare as
 * "C", byte by byte, as SQLite's default BINARY collation does.
 */
export const m029_artifact_names: Builder = async (db, dialect) => {
  if (dialect === 'postgres') await sql`create index artifacts_org_filename on artifacts (organization_id, filename collate "C", id)`.execute(db);
  else await db.schema.createIndex('artifacts_org_filename').on('artifacts').columns(['organization_id', 'filename', 'id']).execute();
};
