// @database
/**
 * `trailproof backup OUT.db` while the server is serving writes: the backup runs as its own
 * process while writers keep sending (and being answered), it finishes although the database
 * changes under it all the time, and the copy is consistent, passes integrity and hash-chain
 * verification, and a server started on it serves the data.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteStore } from '@trailproof/server';
import { testBackend } from '@trailproof/server/testing';
import { sqliteIntegrity } from './support/db-fingerprint.ts';
import { call, runCli, runTrailproof, startServerProcess, type ServerProcess } from './support/processes.ts';

describe('trailproof backup while serving', function () {
  this.timeout(120_000);
  let dir = '';
  const servers: ServerProcess[] = [];

  before(function () {
    if (testBackend !== 'sqlite') return this.skip(); // PostgreSQL is backed up with pg_dump (docs/scaling.md)
    dir = mkdtempSync(join(tmpdir(), 'trailproof-backup-'));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('copies a consistent database that verifies and serves', async () => {
    const file = join(dir, 'live.db');
    const copy = join(dir, 'copy.db');
    const token = (await runCli(['token', 'create', '--org', 'acme', '--db', file])).trim();
    const live = await startServerProcess(['--db', file]);
    servers.push(live);
    const form = new FormData();
    form.append('data_json', JSON.stringify({ name: 'b1' }));
    expect((await call(live.url, token, 'PUT', '/api/v2/trails/acme/app', { form })).status).to.equal(201);

    let writing = true;
    let acknowledged = 0;
    const writer = async (w: number) => {
      for (let i = 0; writing; i++) {
        const f = new FormData();
        f.append(
          'data_json',
          JSON.stringify({ attestation_name: `w${w}-${i}`, junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 0.1 }] }),
        );
        f.append('attachment_file', new Blob([Buffer.alloc(50_000, i % 251)]), 'junit.xml');
        const res = await call(live.url, token, 'POST', '/api/v2/attestations/acme/app/trail/b1/junit', { form: f });
        expect(res.status).to.equal(201);
        acknowledged++;
      }
    };
    const writers = Promise.all([writer(0), writer(1), writer(2)]);
    writers.catch(() => {}); // awaited below
    await Promise.race([new Promise((r) => setTimeout(r, 500)), writers]);
    const before = acknowledged;
    const backup = await runTrailproof(['backup', copy, '--db', file]);
    const during = acknowledged - before;
    writing = false;
    await writers;
    expect(backup.status, backup.stderr).to.equal(0);
    expect(during, 'writes acknowledged while the backup ran').to.be.greaterThan(5);

    expect(sqliteIntegrity(copy)).to.equal('ok');
    const verified = JSON.parse(await runCli(['verify', '--json', '--db', copy])) as Array<{ org: string; ok: boolean; records: number }>;
    const acme = verified.find((v) => v.org === 'acme')!;
    expect(acme.ok).to.equal(true);
    expect(acme.records).to.be.greaterThan(1);

    // A server on the restored copy serves what the copy holds: the trail and a prefix of the attestations.
    const restored = await startServerProcess(['--db', copy]);
    servers.push(restored);
    const trail = await call(restored.url, token, 'GET', '/api/v2/trails/acme/app/b1');
    expect(trail.status).to.equal(200);
    // The trail answers its attestations a page at a time; the count is of all of them.
    const held = trail.body.attestations_pagination.total;
    expect(held).to.equal(acme.records - 1);
    expect(held).to.be.at.most(acknowledged);
    expect(held, 'the copy holds writes acknowledged after the backup started').to.be.greaterThan(before);

    // Refuses to overwrite, and refuses PostgreSQL URLs (pg_dump is the tool there).
    const again = await runTrailproof(['backup', copy, '--db', file]);
    expect(again.status).to.equal(2);
    expect(again.stderr).to.contain('exists already');
  });

  it('finishes although another connection commits between every step of the copy', async () => {
    // SQLite's backup API starts over when another connection writes to the source between two
    // steps; copied a few pages at a time, a database that a server writes to all the time would
    // never finish. Here a second connection commits every few milliseconds, always in between.
    const file = join(dir, 'busy.db');
    const store = await openSqliteStore(file);
    const writer = await openSqliteStore(file);
    try {
      for (let i = 0; i < 5; i++) await store.putBlob(randomBytes(8_000_000), Date.now() / 1000); // about 40 MB
      let commits = 0;
      const writing = setInterval(() => void writer.putBlob(randomBytes(1_000), Date.now() / 1000).then(() => commits++), 2);
      // The other connection is committing before the copy starts (a copy in one step could
      // otherwise finish before the first of its commits, proving nothing).
      while (commits < 3) await new Promise((r) => setTimeout(r, 5));
      let timer: NodeJS.Timeout | undefined;
      const backup = store.backup!(join(dir, 'busy-copy.db'));
      const outcome = await Promise.race([backup.then(() => 'done'), new Promise((r) => (timer = setTimeout(r, 20_000, 'starved')))]);
      clearInterval(writing);
      clearTimeout(timer);
      await backup; // (finishes once the writes stop, if it had not)
      expect(outcome).to.equal('done');
      expect(commits, 'the other connection committed meanwhile').to.be.greaterThan(0);
      expect(sqliteIntegrity(join(dir, 'busy-copy.db'))).to.equal('ok');
    } finally {
      await writer.close();
      await store.close();
    }
  });
});
