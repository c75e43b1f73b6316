import { sql } from 'kysely';
import { type Builder, types } from './builder.ts';

/**
 * Each trail's organisation, copied from its flow, and an index on it in the order trails are
 * listed (newest first), so that an organisation's trails are paged across its flows from the
 * index instead of gathering and sorting every trail of every flow. Filled for existing trails.
 */
export const m021_trails_organization: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema.alterTable('trails').addColumn('organization_id', t.ref).execute();
  await sql`update trails set organization_id = (select flows.organization_id from flows where flows.id = trails.flow_id)`.execute(db);
  await db.schema.createIndex('trails_org_created').on('trails').columns(['organization_id', 'created_at', 'id']).execute();
};
