import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from './driver.ts';
import { expect } from 'chai';
import { newDatabasePageSize, openSqlite } from './open.ts';
import { InMemoryDatabaseError, openSqliteStore } from './store.ts';

describe('the SQLite connection settings', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'trailproof-sqlite-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes in WAL mode with synchronous=FULL and foreign keys enforced, unless told otherwise', async () => {
    const file = join(dir, 'a.db');
    const { db, reader, raw } = openSqlite(file);
    try {
      expect(raw.pragma('journal_mode', { simple: true })).to.equal('wal');
      expect(raw.pragma('synchronous', { simple: true })).to.equal(2); // 2 = FULL
      expect(raw.pragma('foreign_keys', { simple: true })).to.equal(1);
      raw.exec('create table parent (id integer primary key); create table child (parent_id integer references parent(id))');
      expect(() => raw.exec('insert into child values (42)')).to.throw(/FOREIGN KEY/);
    } finally {
      await db.destroy();
      await reader.destroy();
    }
    // WAL is a property of the file: another connection sees it too.
    const other = new BetterSqlite3(file);
    expect(other.pragma('journal_mode', { simple: true })).to.equal('wal');
    other.close();

    const relaxed = openSqlite(join(dir, 'b.db'), { synchronous: 'NORMAL' });
    expect(relaxed.raw.pragma('synchronous', { simple: true })).to.equal(1);
    await relaxed.db.destroy();
    await relaxed.reader.destroy();
  });

  it('gives a new database 16KB pages, and leaves an existing one its own', async () => {
    const created = openSqlite(join(dir, 'new.db'));
    expect(created.raw.pragma('page_size', { simple: true })).to.equal(newDatabasePageSize);
    await created.db.destroy();
    await created.reader.destroy();

    const file = join(dir, 'old.db');
    const old = new BetterSqlite3(file);
    old.exec('create table t (x)');
    expect(old.pragma('page_size', { simple: true })).to.equal(4096);
    old.close();
    const reopened = openSqlite(file);
    expect(reopened.raw.pragma('page_size', { simple: true })).to.equal(4096);
    expect(reopened.raw.pragma('journal_mode', { simple: true })).to.equal('wal');
    await reopened.db.destroy();
    await reopened.reader.destroy();
  });

  it('caps the file at maxSizeBytes in whole pages (a larger file keeps its size), and refuses a cap that is not a positive size', async () => {
    const capped = openSqlite(join(dir, 'capped.db'), { maxSizeBytes: 1024 * 1024 + 1 });
    try {
      expect(capped.raw.pragma('max_page_count', { simple: true })).to.equal(Math.floor((1024 * 1024 + 1) / newDatabasePageSize));
      capped.raw.exec('create table t (x blob)');
      capped.raw.prepare('insert into t values (?)').run(Buffer.alloc(512 * 1024));
      expect(() => capped.raw.prepare('insert into t values (?)').run(Buffer.alloc(600 * 1024)))
        .to.throw(/full/)
        .with.property('code', 'SQLITE_FULL');
      expect(capped.raw.prepare('select count(*) as n from t').get()).to.deep.equal({ n: 1 });
    } finally {
      await capped.db.destroy();
      await capped.reader.destroy();
    }
    // A cap below the file's size holds it where it is.
    const below = openSqlite(join(dir, 'capped.db'), { maxSizeBytes: 16 * 1024 });
    expect(below.raw.pragma('max_page_count', { simple: true })).to.equal(below.raw.pragma('page_count', { simple: true }));
    await below.db.destroy();
    await below.reader.destroy();

    for (const maxSizeBytes of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => openSqlite(join(dir, 'never.db'), { maxSizeBytes }), String(maxSizeBytes)).to.throw(
        RangeError,
        /maxSizeBytes must be a positive number of bytes/,
      );
    }
  });
});

describe('openSqliteStore without a file', () => {
  it('refuses an in-memory database with an error that asks for a path, before opening anything', async () => {
    for (const file of [':memory:', '']) {
      const error = await openSqliteStore(file).then(
        () => expect.fail(`opened a store on '${file}'`),
        (thrown: unknown) => thrown,
      );
      expect(error).to.be.instanceOf(InMemoryDatabaseError);
      expect((error as Error).message).to.match(/needs a database file.*Give a path/);
    }
  });
});
