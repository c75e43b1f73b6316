// @database
/**
 * Group commit on a full disk: SQLite rolls the whole transaction back by itself when a write
 * meets ENOSPC, inside a job (a page spilled from the cache) or at COMMIT. The job's own error
 * (SQLITE_FULL) must reach its caller, not the failed ROLLBACK's ("no such savepoint", "cannot
 * rollback - no transaction is active"), and the database must be whole and writable once there
 * is room again.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { sql, type Kysely } from 'kysely';
import type BetterSqlite3 from './driver.ts';
import type { Database } from '../database.ts';
import { groupCommit } from './group-commit.ts';
import { openSqliteWriter } from './open.ts';
import { sqliteIntegrity } from '../../../../../test/support/db-fingerprint.ts';
import { fillUp, mountSmallDisk, skipSaying, type SmallDisk } from '../../../../../test/support/file-systems.ts';

describe('group commit on a full disk (SQLite on a small tmpfs)', function () {
  this.timeout(60_000);
  let disk: SmallDisk | undefined;
  let db: Kysely<Database>;
  let raw: BetterSqlite3.Database;
  let file = '';

  before(async function () {
    const mounted = mountSmallDisk('16m');
    if (typeof mounted === 'string') return skipSaying(this, mounted);
    disk = mounted;
    file = join(disk.dir, 'group.db');
    ({ db, raw } = openSqliteWriter(file));
    raw.exec('create table blobs (id integer primary key, content blob not null)');
    // A cache of 20 pages: a job of a few hundred KB spills pages into the WAL before its COMMIT.
    raw.pragma('cache_size = 20');
  });
  after(async () => {
    await db?.destroy();
    disk?.remove();
  });

  const insert = (bytes: number) => async (trx: Kysely<Database>) => {
    await sql`insert into blobs (content) values (${randomBytes(bytes)})`.execute(trx);
    return bytes;
  };
  const codes = (settled: PromiseSettledResult<unknown>[]) =>
    settled.map((s) => (s.status === 'fulfilled' ? 'stored' : `${(s.reason as { code?: string }).code}: ${(s.reason as Error).message}`));

  it('fails each job with SQLITE_FULL, whether the disk fills inside a job or at COMMIT, and writes again once there is room', async () => {
    const filler = join(disk!.dir, 'filler');
    raw.pragma('wal_checkpoint(TRUNCATE)');
    fillUp(filler);
    const transaction = groupCommit(db);
    // Together in one batch: one job spills (SQLite rolls the whole batch back inside it), the other only needs room at COMMIT.
    const together = await Promise.allSettled([transaction(insert(2_000_000)), transaction(insert(100))]);
    expect(codes(together)).to.deep.equal(['SQLITE_FULL: database or disk is full', 'SQLITE_FULL: database or disk is full']);
    // A plain transaction of the writer connection, failing at COMMIT.
    const plain = await Promise.allSettled([db.transaction().execute(insert(100))]);
    expect(codes(plain)).to.deep.equal(['SQLITE_FULL: database or disk is full']);
    expect(raw.inTransaction).to.equal(false);
    expect(raw.prepare('select count(*) from blobs').pluck().get()).to.equal(0);

    rmSync(filler);
    expect(codes(await Promise.allSettled([transaction(insert(2_000_000)), transaction(insert(100))]))).to.deep.equal(['stored', 'stored']);
    expect(raw.prepare('select count(*) from blobs').pluck().get()).to.equal(2);
    expect(sqliteIntegrity(file)).to.equal('ok');
  });
});
