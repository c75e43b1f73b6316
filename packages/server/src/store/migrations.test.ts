// @database
/**
 * Migrations at start-up: a database with every migration applied is checked by one read and
 * nothing else; one with a migration this server does not know still meets Kysely's migrator.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Kysely, sql } from 'kysely';
import { BetterSqlite3 } from '@trailproof/server/testing';
import { migrate } from './migrations.ts';
import { sqliteDialect } from './sqlite/open.ts';

describe('migrate', () => {
  let dir = '';
  const opened: Array<Kysely<any>> = [];
  /** A Kysely on `file` that keeps the SQL of every query it runs. */
  const open = (file: string) => {
    const queries: string[] = [];
    const db = new Kysely<any>({ dialect: sqliteDialect(new BetterSqlite3(file)), log: (event) => void queries.push(event.query.sql) });
    opened.push(db);
    return { db, queries };
  };
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'trailproof-migrate-'))));
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies every migration to a new database, and checks a migrated one with a single read', async () => {
    const file = join(dir, 'test.db');
    const first = open(file);
    await migrate(first.db, 'sqlite');
    expect(first.queries.length, 'a new database is migrated').to.be.above(19);
    const again = open(file);
    await migrate(again.db, 'sqlite');
    expect(again.queries).to.deep.equal(['select name from "schema_migrations"']);
  });

  it('leaves a database with a migration it does not know to the migrator, which refuses it as before', async () => {
    const file = join(dir, 'test.db');
    const { db } = open(file);
    await migrate(db, 'sqlite');
    await sql`insert into schema_migrations (name, timestamp) values ('9999_from_a_newer_release', '2030-01-01T00:00:00.000Z')`.execute(db);
    const error = await migrate(db, 'sqlite').then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).to.match(/corrupted migrations/);
  });
});
