import { sql } from 'kysely';
import type { Builder } from './builder.ts';

/**
 * Each flow's and each organisation's number of trails, kept on their rows, so that a list of
 * trails with no filter (the API's and the console's, 100,000 trails and more) answers its total
 * without counting them; trails are never deleted (migration 0005 refuses it), so an insert
 * trigger is all that keeps them: every way a trail is inserted, from whatever client, counts it.
 * And an index of the organisation's trails by commit, for the console's search by the start of
 * a commit: without it the organisation's whole range of trails was read for each search.
 */
export const m031_trail_counts: Builder = async (db, dialect) => {
  for (const table of ['organizations', 'flows'])
    await db.schema
      .alterTable(table)
      .addColumn('trail_count', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  await sql`update flows set trail_count = (select count(*) from trails where trails.flow_id = flows.id)`.execute(db);
  await sql`update organizations set trail_count = (select count(*) from trails where trails.organization_id = organizations.id)`.execute(db);
  if (dialect === 'postgres') {
    await sql`create or replace function trailproof_trail_counted() returns trigger language plpgsql as $$
      begin
        update flows set trail_count = trail_count + 1 where id = new.flow_id;
        update organizations set trail_count = trail_count + 1 where id = new.organization_id;
        return null;
      end $$`.execute(db);
    await sql`create trigger trails_counted after insert on trails for each row execute function trailproof_trail_counted()`.execute(db);
  } else {
    await sql`create trigger trails_counted after insert on trails begin
      update flows set trail_count = trail_count + 1 where id = new.flow_id;
      update organizations set trail_count = trail_count + 1 where id = new.organization_id;
    end`.execute(db);
  }
  await db.schema.createIndex('trails_org_commit').on('trails').columns(['organization_id', 'commit_sha', 'created_at', 'id']).execute();
};
