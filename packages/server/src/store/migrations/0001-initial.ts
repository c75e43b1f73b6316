import { type Builder, types } from './builder.ts';

/**
 * The first schema: organisations and their tokens, content-addressed blobs, flows, trails and
 * attestations, environments with their tags, snapshots and deployments, approvals and reviews.
 */
export const m001_initial: Builder = async (db, dialect) => {
  const t = types(dialect);
  const id = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());

  await db.schema
    .createTable('organizations')
    .addColumn('id', t.id, id)
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('secret_sha256', 'text', (c) => c.notNull())
    .addColumn('read_only', 'integer', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('revoked_at', t.time)
    .execute();

  await db.schema
    .createTable('blobs')
    .addColumn('sha256', 'text', (c) => c.primaryKey())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content', t.bytes, (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('flows')
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

  await db.schema
    .createTable('trails')
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

  await db.schema
    .createTable('attestations')
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

  await db.schema
    .createTable('environments')
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

  await db.schema
    .createTable('environment_tags')
    .addColumn('environment_id', t.ref, (c) => c.notNull().references('environments.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('environment_tags_pk', ['environment_id', 'key'])
    .execute();
  await db.schema.createIndex('environment_tags_key_value').on('environment_tags').columns(['key', 'value', 'environment_id']).execute();

  await db.schema
    .createTable('snapshots')
    .addColumn('id', t.id, id)
    .addColumn('environment_id', t.ref, (c) => c.notNull().references('environments.id'))
    .addColumn('snapshot_index', 'integer', (c) => c.notNull())
    .addColumn('artifacts', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('snapshots_env_index', ['environment_id', 'snapshot_index'])
    .execute();

  await db.schema
    .createTable('deployments')
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

  await db.schema
    .createTable('approvals')
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

  await db.schema
    .createTable('reviews')
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
