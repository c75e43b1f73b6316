import { type Builder, types } from './builder.ts';

/**
 * Environments whose badge anyone may fetch without a token (`trailproof badge public`): a row
 * each, removed again by `trailproof badge private`. A setting, not evidence: not chained.
 */
export const m018_environment_badges: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema
    .createTable('environment_badges')
    .addColumn('environment_id', t.ref, (c) => c.primaryKey().references('environments.id'))
    .addColumn('made_public_at', t.time, (c) => c.notNull())
    .execute();
};
