import { sql } from 'kysely';
import type { Builder } from './builder.ts';

/**
 * Each organisation's number of environments, kept on its row, so that an environment list with
 * no filter answers `total_count` without counting them (counting cost more than the page
 * itself). Environments are never deleted; the transaction
 * that creates one adds one (`upsertEnvironment`).
 */
export const m008_environment_counts: Builder = async (db) => {
  await db.schema
    .alterTable('organizations')
    .addColumn('environment_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update organizations set environment_count = (select count(*) from environments where environments.organization_id = organizations.id)`.execute(db);
};
