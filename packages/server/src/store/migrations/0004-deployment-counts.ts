import { sql } from 'kysely';
import { type Builder, types } from './builder.ts';

export const m004_deployment_counts: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema
    .createTable('deployment_counts')
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('env_name', 'text', (c) => c.notNull())
    .addColumn('repo_name', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('count', t.ref, (c) => c.notNull())
    .addPrimaryKeyConstraint('deployment_counts_pk', ['organization_id', 'env_name', 'repo_name', 'day'])
    .execute();
  await sql`insert into deployment_counts (organization_id, env_name, repo_name, day, count)
    select organization_id, env_name, repo_name, day, count(*) from (
      select organization_id, '' as env_name, '' as repo_name, cast(floor(deployed_at / 86400) as integer) as day from deployments
      union all select organization_id, env_name, '', cast(floor(deployed_at / 86400) as integer) from deployments
      union all select organization_id, '', repo_name, cast(floor(deployed_at / 86400) as integer) from deployments where repo_name is not null
      union all select organization_id, env_name, repo_name, cast(floor(deployed_at / 86400) as integer) from deployments where repo_name is not null
    ) as d group by organization_id, env_name, repo_name, day`.execute(db);
};
