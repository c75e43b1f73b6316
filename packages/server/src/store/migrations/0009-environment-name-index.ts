import { sql } from 'kysely';
import type { Builder } from './builder.ts';

/**
 * SQLite: a trigram index of environment names (FTS5, external content: the names stay in
 * `environments`), kept by triggers, so that counting the environments whose name contains a
 * substring of three characters or more reads the index instead of every name of the
 * organisation. PostgreSQL keeps its LIKE scan (pg_trgm is an extension a server may not have).
 */
export const m009_environment_name_index: Builder = async (db, dialect) => {
  if (dialect !== 'sqlite') return;
  await sql`create virtual table environment_names using fts5(name_lower, content='environments', content_rowid='id', tokenize='trigram case_sensitive 1')`.execute(
    db,
  );
  await sql`create trigger environment_names_insert after insert on environments begin
    insert into environment_names (rowid, name_lower) values (new.id, new.name_lower);
  end`.execute(db);
  await sql`create trigger environment_names_update after update of name_lower on environments begin
    insert into environment_names (environment_names, rowid, name_lower) values ('delete', old.id, old.name_lower);
    insert into environment_names (rowid, name_lower) values (new.id, new.name_lower);
  end`.execute(db);
  await sql`create trigger environment_names_delete after delete on environments begin
    insert into environment_names (environment_names, rowid, name_lower) values ('delete', old.id, old.name_lower);
  end`.execute(db);
  await sql`insert into environment_names (environment_names) values ('rebuild')`.execute(db);
};
