import { sql } from 'kysely';
import type { Builder } from './builder.ts';

/**
 * Indexes that serve the environment list's orders, so a page reads its own rows instead of
 * sorting the whole organisation: by name (case-insensitive, then exact), and by
 * last_modified_at / last_changed_at with never-reported (NULL) first ascending, then name.
 * PostgreSQL puts NULL last by default, so its indexes say NULLS FIRST, as the query does;
 * SQLite's NULL is the smallest value already (and its CREATE INDEX has no NULLS clause). The
 * two-column indexes on these times are prefixes of the new ones and go.
 */
export const m006_environment_order_indexes: Builder = async (db, dialect) => {
  const nullsFirst = sql.raw(dialect === 'postgres' ? ' nulls first' : '');
  await sql`drop index environments_org_modified`.execute(db);
  await sql`drop index environments_org_changed`.execute(db);
  await sql`create index environments_org_name_lower on environments (organization_id, name_lower, name)`.execute(db);
  await sql`create index environments_org_modified_name on environments (organization_id, last_modified_at${nullsFirst}, name_lower, name)`.execute(db);
  await sql`create index environments_org_changed_name on environments (organization_id, last_changed_at${nullsFirst}, name_lower, name)`.execute(db);
};
