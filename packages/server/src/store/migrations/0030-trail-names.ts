import { sql } from 'kysely';
import type { Builder } from './builder.ts';

/**
 * An index of an organisation's trails by name, newest first within a name, for the console's
 * search by the start of a name: a prefix is a range of it, read in its order up to the page's
 * bound. As for artifacts' names (migration 0029), PostgreSQL's index (and the query) compare as
 * "C", byte by byte, as SQLite's default BINARY collation does.
 */
export const m030_trail_names: Builder = async (db, dialect) => {
  const name = dialect === 'postgres' ? sql.raw('name collate "C"') : sql.raw('name');
  await sql`create index trails_org_name on trails (organization_id, ${name}, created_at desc, id desc)`.execute(db);
};
