import { sql } from 'kysely';
import { type Builder, types } from './builder.ts';

/**
 * Each organisation's deployments counted per UTC hour (all environments and repositories
 * together), so that `total_count` of an unfiltered list counts rows only in the two partial
 * hours at the window's edges, not in two partial days, the one part of the count that grew
 * with the table.
 */
export const m011_deployment_hour_counts: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema
    .createTable('deployment_hour_counts')
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('hour', 'integer', (c) => c.notNull())
    .addColumn('count', t.ref, (c) => c.notNull())
    .addPrimaryKeyConstraint('deployment_hour_counts_pk', ['organization_id', 'hour'])
    .execute();
  await sql`insert into deployment_hour_counts (organization_id, hour, count)
    select organization_id, cast(floor(deployed_at / 3600) as integer) as hour, count(*) from deployments
    group by organization_id, cast(floor(deployed_at / 3600) as integer)`.execute(db);
};
