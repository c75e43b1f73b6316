/**
 * Numbered migrations, applied in order at start-up inside one transaction each. Column types
 * are chosen per dialect only where SQLite and PostgreSQL disagree (ids, blobs, floats).
 */
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { DialectName } from './database.ts';

type Builder = (db: Kysely<unknown>, dialect: DialectName) => Promise<void>;

const types = (dialect: DialectName) => ({
  id: dialect === 'postgres' ? ('bigserial' as const) : ('integer' as const),
  ref: dialect === 'postgres' ? ('bigint' as const) : ('integer' as const),
  time: dialect === 'postgres' ? ('double precision' as const) : ('real' as const),
  bytes: dialect === 'postgres' ? ('bytea' as const) : ('blob' as const),
});

const m001_initial: Builder = async (db, dialect) => {
  const t = types(dialect);
  const id = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());

  await db.schema.createTable('organizations')
    .addColumn('id', t.id, id)
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema.createTable('tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('secret_sha256', 'text', (c) => c.notNull())
    .addColumn('read_only', 'integer', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('revoked_at', t.time)
    .execute();

  await db.schema.createTable('blobs')
    .addColumn('sha256', 'text', (c) => c.primaryKey())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content', t.bytes, (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema.createTable('flows')
    .addColumn('id', t.id, id)
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('template_sha256', 'text', (c) => c.references('blobs.sha256'))
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('last_modified_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('flows_org_name', ['organization_id', 'name'])
    .execute();

  await db.schema.createTable('trails')
    .addColumn('id', t.id, id)
    .addColumn('flow_id', t.ref, (c) => c.notNull().references('flows.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('commit_sha', 'text')
    .addColumn('repo_name', 'text')
    .addColumn('git_commit_info', 'text')
    .addColumn('repo_info', 'text')
    .addColumn('origin_url', 'text')
    .addColumn('external_urls', 'text')
    .addColumn('user_data', 'text')
    .addColumn('template_sha256', 'text', (c) => c.references('blobs.sha256'))
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('last_modified_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('trails_flow_name', ['flow_id', 'name'])
    .execute();
  await db.schema.createIndex('trails_commit').on('trails').columns(['commit_sha']).execute();

  await db.schema.createTable('attestations')
    .addColumn('id', t.id, id)
    .addColumn('trail_id', t.ref, (c) => c.notNull().references('trails.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('artifact_fingerprint', 'text')
    .addColumn('attachment_sha256', 'text', (c) => c.references('blobs.sha256'))
    .addColumn('attachment_name', 'text')
    .addColumn('compliant', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('attestations_trail').on('attestations').columns(['trail_id', 'name', 'id']).execute();
  await db.schema.createIndex('attestations_fingerprint').on('attestations').columns(['artifact_fingerprint']).execute();

  await db.schema.createTable('environments')
    .addColumn('id', t.id, id)
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('include_scaling', 'integer', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('policies', 'text', (c) => c.notNull())
    .addColumn('included_environments', 'text', (c) => c.notNull())
    .addColumn('space_id', 'text')
    .addColumn('last_modified_at', t.time, (c) => c.notNull())
    .addColumn('last_reported_at', t.time)
    .addColumn('last_changed_at', t.time)
    .addColumn('state', 'integer')
    .addUniqueConstraint('environments_org_name', ['organization_id', 'name'])
    .execute();
  await db.schema.createIndex('environments_org_modified').on('environments').columns(['organization_id', 'last_modified_at']).execute();
  await db.schema.createIndex('environments_org_changed').on('environments').columns(['organization_id', 'last_changed_at']).execute();

  await db.schema.createTable('environment_tags')
    .addColumn('environment_id', t.ref, (c) => c.notNull().references('environments.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('environment_tags_pk', ['environment_id', 'key'])
    .execute();
  await db.schema.createIndex('environment_tags_key_value').on('environment_tags').columns(['key', 'value', 'environment_id']).execute();

  await db.schema.createTable('snapshots')
    .addColumn('id', t.id, id)
    .addColumn('environment_id', t.ref, (c) => c.notNull().references('environments.id'))
    .addColumn('snapshot_index', 'integer', (c) => c.notNull())
    .addColumn('artifacts', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('snapshots_env_index', ['environment_id', 'snapshot_index'])
    .execute();

  await db.schema.createTable('deployments')
    .addColumn('id', t.id, id)
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('environment_id', t.ref, (c) => c.notNull().references('environments.id'))
    .addColumn('env_name', 'text', (c) => c.notNull())
    .addColumn('snapshot_index', 'integer', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('artifact_name', 'text', (c) => c.notNull())
    .addColumn('deployed_at', t.time, (c) => c.notNull())
    .addColumn('trail_id', t.ref, (c) => c.references('trails.id'))
    .addColumn('repo_name', 'text')
    .execute();
  await db.schema.createIndex('deployments_org_time').on('deployments').columns(['organization_id', 'deployed_at', 'id']).execute();
  await db.schema.createIndex('deployments_org_env_time').on('deployments').columns(['organization_id', 'env_name', 'deployed_at', 'id']).execute();
  await db.schema.createIndex('deployments_org_repo_time').on('deployments').columns(['organization_id', 'repo_name', 'deployed_at', 'id']).execute();

  await db.schema.createTable('approvals')
    .addColumn('id', t.id, id)
    .addColumn('flow_id', t.ref, (c) => c.notNull().references('flows.id'))
    .addColumn('release_number', 'integer', (c) => c.notNull())
    .addColumn('target_artifact', 'text', (c) => c.notNull())
    .addColumn('base_artifact', 'text', (c) => c.notNull())
    .addColumn('artifact_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('environment', 'text')
    .addColumn('src_commit_list', 'text', (c) => c.notNull())
    .addColumn('user_data', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('last_modified_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('approvals_flow_number', ['flow_id', 'release_number'])
    .execute();

  await db.schema.createTable('reviews')
    .addColumn('id', t.id, id)
    .addColumn('approval_id', t.ref, (c) => c.notNull().references('approvals.id'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull())
    .addColumn('approved_by', 'text', (c) => c.notNull())
    .addColumn('approval_url', 'text', (c) => c.notNull())
    .addColumn('timestamp', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reviews_approval').on('reviews').columns(['approval_id', 'id']).execute();
};

/**
 * The evidence model (issue 3): flows keep the repository URL the reference sends; an index for
 * listing a flow's trails newest first. Only portable DDL (ADD COLUMN of a nullable text column,
 * CREATE INDEX): no column type differs between the dialects here, so `types(dialect)` has
 * nothing to choose.
 */
const m002_evidence: Builder = async (db) => {
  await db.schema.alterTable('flows').addColumn('repo_url', 'text').execute();
  await db.schema.createIndex('trails_flow_created').on('trails').columns(['flow_id', 'created_at', 'id']).execute();
};

/**
 * Tamper evidence: the per-organisation hash chain, and triggers that make evidence rows
 * append-only (the database itself refuses UPDATE and DELETE on them).
 */
const m003_tamper_evidence: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema.createTable('evidence_log')
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('record', 'text', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('evidence_log_pk', ['organization_id', 'seq'])
    .execute();

  if (dialect === 'postgres') {
    await sql`create or replace function trailproof_refuse_change() returns trigger language plpgsql as $$
      begin
        raise exception 'evidence is append-only: % on % refused', tg_op, tg_table_name using errcode = '42501';
      end $$`.execute(db);
  }
  for (const table of appendOnlyTables) {
    const trigger = sql.raw(`${table}_append_only`);
    if (dialect === 'postgres') {
      await sql`create trigger ${trigger} before update or delete on ${sql.table(table)} for each row execute function trailproof_refuse_change()`.execute(db);
    } else {
      for (const op of ['update', 'delete'] as const) {
        const name = sql.raw(`${table}_no_${op}`);
        await sql`create trigger ${name} before ${sql.raw(op)} on ${sql.table(table)} begin select raise(abort, ${sql.lit(`evidence is append-only: ${op} on ${table} refused`)}); end`.execute(db);
      }
    }
  }
};

/** Per-day deployment counts (see DeploymentCountsTable), filled from the deployments already stored. */
const m004_deployment_counts: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema.createTable('deployment_counts')
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

/**
 * Closes what row triggers do not see. On PostgreSQL, TRUNCATE empties a table without firing
 * row triggers: a statement-level trigger refuses it on every evidence table and on trails.
 * Trails are updated in place by each begin (the chain vouches for the latest state), but
 * never removed: both databases refuse DELETE on them.
 */
const m005_refuse_truncate: Builder = async (db, dialect) => {
  if (dialect === 'postgres') {
    for (const table of [...appendOnlyTables, 'trails']) {
      await sql`create trigger ${sql.raw(`${table}_no_truncate`)} before truncate on ${sql.table(table)} for each statement execute function trailproof_refuse_change()`.execute(db);
    }
    await sql`create trigger trails_no_delete before delete on trails for each row execute function trailproof_refuse_change()`.execute(db);
  } else {
    await sql`create trigger trails_no_delete before delete on trails begin select raise(abort, 'evidence is append-only: delete on trails refused'); end`.execute(db);
  }
};

/**
 * Indexes that serve the environment list's orders, so a page reads its own rows instead of
 * sorting the whole organisation: by name (case-insensitive, then exact), and by
 * last_modified_at / last_changed_at with never-reported (NULL) first ascending, then name.
 * PostgreSQL puts NULL last by default, so its indexes say NULLS FIRST, as the query does;
 * SQLite's NULL is the smallest value already (and its CREATE INDEX has no NULLS clause). The
 * two-column indexes on these times are prefixes of the new ones and go.
 */
const m006_environment_order_indexes: Builder = async (db, dialect) => {
  const nullsFirst = sql.raw(dialect === 'postgres' ? ' nulls first' : '');
  await sql`drop index environments_org_modified`.execute(db);
  await sql`drop index environments_org_changed`.execute(db);
  await sql`create index environments_org_name_lower on environments (organization_id, name_lower, name)`.execute(db);
  await sql`create index environments_org_modified_name on environments (organization_id, last_modified_at${nullsFirst}, name_lower, name)`.execute(db);
  await sql`create index environments_org_changed_name on environments (organization_id, last_changed_at${nullsFirst}, name_lower, name)`.execute(db);
};

/**
 * PostgreSQL compresses large values with pglz by default: on attachments, 3-4 ms of the
 * backend's CPU per 100KB (measured, and as long again when the content does not compress),
 * most of what storing an attestation cost. lz4 compresses about as well at a fraction of the
 * cost; a server built without it keeps attachments uncompressed instead. Values stored before
 * keep their compression (both read back the same).
 */
const m007_blob_compression: Builder = async (db, dialect) => {
  if (dialect !== 'postgres') return;
  await sql`do $$ begin
    alter table blobs alter column content set compression lz4;
  exception when feature_not_supported or invalid_parameter_value then
    alter table blobs alter column content set storage external;
  end $$`.execute(db);
};

/** Evidence tables: rows are written once and never changed or removed. */
export const appendOnlyTables = ['attestations', 'snapshots', 'deployments', 'approvals', 'reviews', 'blobs', 'evidence_log'] as const;

/** All migrations, by name; names sort in the order they apply. */
export const migrations: Record<string, Builder> = {
  '0001_initial': m001_initial,
  '0002_evidence': m002_evidence,
  '0003_tamper_evidence': m003_tamper_evidence,
  '0004_deployment_counts': m004_deployment_counts,
  '0005_refuse_truncate': m005_refuse_truncate,
  '0006_environment_order_indexes': m006_environment_order_indexes,
  '0007_blob_compression': m007_blob_compression,
};

/** Applies every pending migration; throws (and applies nothing more) if one fails. */
export async function migrate(db: Kysely<any>, dialect: DialectName, schema?: string): Promise<void> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, build] of Object.entries(migrations)) out[name] = { up: (d) => build(d, dialect) };
      return out;
    },
  };
  const { error } = await new Migrator({ db, provider, migrationTableName: 'schema_migrations', migrationLockTableName: 'schema_migrations_lock', ...(schema ? { migrationTableSchema: schema } : {}) }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
