import { sql } from 'kysely';
import type { Builder } from './builder.ts';

/** The channel on which PostgreSQL announces that the tokens table changed (see token-changes.ts). */
export const tokenChannel = 'trailproof_tokens';

/**
 * PostgreSQL: every statement that changes the tokens table (insert, update such as a revocation,
 * delete, truncate), from whatever client, notifies `tokenChannel` when its transaction commits,
 * so that servers which remember tokens forget them. SQLite needs nothing: its servers watch
 * `PRAGMA data_version` instead.
 */
export const m010_token_notifications: Builder = async (db, dialect) => {
  if (dialect !== 'postgres') return;
  await sql`create or replace function trailproof_tokens_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify(${sql.lit(tokenChannel)}, tg_table_schema);
      return null;
    end $$`.execute(db);
  await sql`create trigger tokens_changed after insert or update or delete or truncate on tokens for each statement execute function trailproof_tokens_changed()`.execute(
    db,
  );
};
