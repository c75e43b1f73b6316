import type { Builder } from './builder.ts';

/**
 * The evidence model: flows keep the repository URL the reference sends; an index for
 * listing a flow's trails newest first. Only portable DDL (ADD COLUMN of a nullable text column,
 * CREATE INDEX): no column type differs between the dialects here, so `types(dialect)` has
 * nothing to choose.
 */
export const m002_evidence: Builder = async (db) => {
  await db.schema.alterTable('flows').addColumn('repo_url', 'text').execute();
  await db.schema.createIndex('trails_flow_created').on('trails').columns(['flow_id', 'created_at', 'id']).execute();
};
