import { sql } from 'kysely';
import { type Builder, appendOnlyTables } from './builder.ts';

/**
 * Closes what row triggers do not see. On PostgreSQL, TRUNCATE empties a table without firing
 * row triggers: a statement-level trigger refuses it on every evidence table and on trails.
 * Trails are updated in place by each begin (the chain vouches for the latest state), but
 * never removed: both databases refuse DELETE on them.
 */
export const m005_refuse_truncate: Builder = async (db, dialect) => {
  if (dialect === 'postgres') {
    for (const table of [...appendOnlyTables, 'trails']) {
      await sql`create trigger ${sql.raw(`${table}_no_truncate`)} before truncate on ${sql.table(table)} for each statement execute function trailproof_refuse_change()`.execute(
        db,
      );
    }
    await sql`create trigger trails_no_delete before delete on trails for each row execute function trailproof_refuse_change()`.execute(db);
  } else {
    await sql`create trigger trails_no_delete before delete on trails begin select raise(abort, 'evidence is append-only: delete on trails refused'); end`.execute(
      db,
    );
  }
};
