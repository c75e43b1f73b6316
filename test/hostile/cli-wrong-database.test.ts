// @database
/**
 * A careless operator's commands: `verify`, `backup` and the token commands that read, given a
 * path where there is no database, an empty file, another kind of file or a damaged database.
 * None of them creates a database or says all is well: each exits non-zero naming what is wrong.
 * `verify` reads a read-only copy (a WAL database without its -shm file in a read-only folder too).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { BetterSqlite3, testBackend } from '@trailproof/server/testing';
import { makeReadOnly, skipSaying } from '../support/file-systems.ts';
import { createDatabase, runCli, runTrailproof } from '../support/processes.ts';

describe('trailproof commands that read a database, given the wrong file', function () {
  this.timeout(120_000);
  let dir = '';
  /** A database with an organisation and a token, as `token create` leaves it. */
  let good = '';

  before(async function () {
    if (testBackend !== 'sqlite') return skipSaying(this, 'SQLite files only; the same on either run');
    dir = mkdtempSync(join(tmpdir(), 'trailproof-wrong-db-'));
    good = join(dir, 'good.db');
    await runCli(['token', 'create', '--org', 'acme', '--db', good]);
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  /** The files a wrong path may name, each made fresh, with what the message says about it. */
  const wrongFiles: Array<[string, () => string, RegExp]> = [
    ['a missing', () => join(dir, 'typo.db'), /no database at .*typo\.db: check the path/],
    ['an empty', () => made('empty.db', ''), /empty\.db is empty: it holds no database/],
    ['a non-SQLite', () => made('notes.db', 'these are my notes, not a database\n'), /notes\.db is not a SQLite database/],
    ['a damaged', () => damaged(good, join(dir, 'damaged.db')), /damaged\.db (is damaged|fails SQLite's integrity check)/],
    ['a foreign SQLite', () => foreign(join(dir, 'other.db')), /other\.db is a SQLite database, but not a Trailproof one/],
  ];
  const made = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));

  for (const [kind, make, says] of wrongFiles) {
    it(`verify fails on ${kind} file, creating nothing`, async () => {
      const file = make();
      const before = readdirSync(dir)
        .filter((name) => !name.endsWith('-shm') && !name.endsWith('-wal'))
        .sort();
      const result = await runTrailproof(['verify', '--db', file]);
      expect(result.status, result.stderr).to.equal(1);
      expect(result.stderr).to.match(says);
      expect(result.stdout).to.equal('');
      expect(
        readdirSync(dir)
          .filter((name) => !name.endsWith('-shm') && !name.endsWith('-wal'))
          .sort(),
      ).to.deep.equal(before);
    });

    it(`backup fails on ${kind} file and leaves no copy`, async () => {
      const file = make();
      const out = join(dir, `copy-of-${kind.replace(/\W+/g, '-')}.db`);
      const result = await runTrailproof(['backup', out, '--db', file]);
      expect(result.status, result.stderr).to.equal(1);
      expect(result.stderr).to.match(kind === 'a damaged' ? /fails SQLite's integrity check, so .* was removed|is damaged/ : says);
      expect(result.stderr).not.to.contain('backed up');
      expect(existsSync(out), 'no copy').to.equal(false);
      if (kind === 'a missing') expect(existsSync(file), 'no database made').to.equal(false);
    });
  }

  it('token list, revoke and evidence fail on a missing file, creating nothing', async () => {
    const file = join(dir, 'nowhere.db');
    for (const args of [
      ['token', 'list'],
      ['token', 'revoke', 'abcdefghijklmnop'],
      ['token', 'evidence', 'abcdefghijklmnop'],
    ]) {
      const result = await runTrailproof([...args, '--db', file]);
      expect(result.status, args.join(' ')).to.equal(1);
      expect(result.stderr).to.match(/no database at .*nowhere\.db/);
      expect(existsSync(file), args.join(' ')).to.equal(false);
    }
  });

  it('verify reads a read-only copy: a file of mode 0444 in a read-only folder, with or without its -shm', async function () {
    const folder = join(dir, 'read-only');
    mkdirSync(folder);
    // A plain copy of the file (a WAL database, whose -shm SQLite cannot make here), and one `backup` made.
    copyFileSync(good, join(folder, 'copied.db'));
    await runCli(['backup', join(folder, 'backed-up.db'), '--db', good]);
    const undo = makeReadOnly(folder);
    if (typeof undo === 'string') return skipSaying(this, undo);
    try {
      for (const name of ['copied.db', 'backed-up.db']) {
        const result = await runTrailproof(['verify', '--json', '--db', join(folder, name)]);
        expect(result.status, `${name}: ${result.stderr}`).to.equal(0);
        const [acme] = JSON.parse(result.stdout);
        expect(acme).to.deep.include({ org: 'acme', ok: true, records: 0, head: '0'.repeat(64), firstBroken: null });
        expect(acme.log).to.include({ ok: true, leaves: 0 });
      }
      expect(readdirSync(folder).sort()).to.deep.equal(['backed-up.db', 'copied.db']);
    } finally {
      undo();
    }
  });
});

/** A copy of `from` whose `tokens` table's root page has a broken header: SQLite's integrity check fails. */
function damaged(from: string, to: string): string {
  rmSync(to, { force: true });
  copyFileSync(from, to);
  const db = new BetterSqlite3(to, { readonly: true });
  const root = db.prepare(`select rootpage from sqlite_master where name = 'tokens'`).pluck().get() as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.close();
  const fd = openSync(to, 'r+');
  try {
    writeSync(fd, Buffer.alloc(8, 0xff), 0, 8, (root - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
  return to;
}

/** A SQLite database of another program. */
function foreign(file: string): string {
  rmSync(file, { force: true });
  const db = new BetterSqlite3(file);
  db.exec('create table notes (text)');
  db.close();
  return file;
}

describe('trailproof commands that read a database, given an empty PostgreSQL database', function () {
  this.timeout(120_000);
  let database: { url: string; drop(): Promise<void> } | undefined;
  before(async function () {
    if (testBackend !== 'postgres') return skipSaying(this, 'PostgreSQL only');
    database = await createDatabase(process.env.TRAILPROOF_TEST_DATABASE!, 'empty');
  });
  after(() => database?.drop());

  it('verify and the token commands that read fail, creating no tables', async () => {
    for (const args of [['verify'], ['token', 'list'], ['token', 'evidence', 'abcdefghijklmnop']]) {
      const result = await runTrailproof([...args, '--database', database!.url]);
      expect(result.status, args.join(' ')).to.equal(1);
      expect(result.stderr, args.join(' ')).to.contain('no Trailproof database at').and.to.contain('no schema_migrations table');
    }
    const client = new pg.Client({ connectionString: database!.url });
    await client.connect();
    try {
      expect((await client.query(`select table_name from information_schema.tables where table_schema = 'public'`)).rows).to.deep.equal([]);
    } finally {
      await client.end();
    }
  });
});
