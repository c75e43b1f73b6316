// @database
/**
 * A SQLite file moved, deleted or replaced under a running server: SQLite in WAL mode would go on
 * committing into the file the server opened, away from the path the next start opens. Writes
 * answer 503 and store nothing, reads never 500, the health check fails; moved back, all goes on.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, renameSync, rmSync } from 'node:fs';
import BetterSqlite3 from './store/sqlite/driver.ts';
import { expect } from 'chai';
import { startTestServer, testBackend, type TestServer } from '@trailproof/server/testing';

describe('a SQLite file moved, deleted or replaced under the server', () => {
  let server: TestServer;
  beforeEach(async function () {
    if (testBackend !== 'sqlite') return this.skip(); // a PostgreSQL database has no file to move
    // The writer thread open before the move, as `serve` opens it.
    server = await startTestServer({ sqlite: { threadsAtOpen: true } });
    expect((await beginTrail('build-1')).status).to.equal(201);
  });
  afterEach(() => server?.close());

  const beginTrail = (name: string) => server.request('PUT', '/api/v2/trails/acme/backend', { form: { data_json: JSON.stringify({ name }) } });
  const attest = (name: string) =>
    server.request('POST', '/api/v2/attestations/acme/backend/trail/build-1/generic', {
      form: {
        data_json: JSON.stringify({ attestation_name: name, is_compliant: true }),
        attachment_file: { content: Buffer.from(`log of ${name}`), name: 'log.txt' },
      },
    });
  const createEnvironment = () => server.request('PUT', '/api/v2/environments/acme', { json: { name: 'prod', type: 'server' } });
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  /** Row counts of the file at `file`, read by a connection of its own. */
  const counts = (file: string) => {
    const db = new BetterSqlite3(file, { readonly: true });
    try {
      return db
        .prepare(
          'select (select count(*) from trails) as trails, (select count(*) from attestations) as attestations, (select count(*) from environments) as environments',
        )
        .get();
    } finally {
      db.close();
    }
  };

  async function expectWritesRefused() {
    for (const answer of [await beginTrail('build-2'), await attest('after'), await createEnvironment()]) {
      expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
      expect(answer.body.message).to.match(
        /^The database is unavailable: its file was moved or deleted while the server ran, and nothing of this request was stored \(request [0-9a-f-]+\)$/,
      );
      expect(answer.headers.get('retry-after')).to.equal(null);
    }
    const health = await server.request('GET', '/api/v2/health', { token: null });
    expect(health.status).to.equal(503);
    expect(health.body.errors).to.deep.equal({ database: 'its file was moved or deleted while the server ran; restart the server' });
  }

  it('refuses writes to a renamed file and stores none of them, never answers a read 500, and serves again once it is back', async () => {
    const moved = `${server.file}.moved`;
    renameSync(server.file, moved);
    await expectWritesRefused();
    // A read is answered from the file the server opened, or refused where SQLite's read
    // connection fails on the moved file (SQLITE_IOERR_FSTAT, seen here): 503, never a 500.
    const trail = await server.request('GET', '/api/v2/trails/acme/backend/build-1');
    expect([200, 503], JSON.stringify(trail.body)).to.include(trail.status);
    if (trail.status === 503)
      expect(trail.body.message).to.match(
        /^The database is unavailable: reading or writing its file failed, and nothing of this request was stored \(request [0-9a-f-]+\)$/,
      );

    // Moved back: none of the refused writes is there (the file is read at its path, with its WAL).
    renameSync(moved, server.file);
    expect((await attest('back')).status).to.equal(201);
    expect((await beginTrail('build-2')).status).to.equal(201);
    expect((await server.request('GET', '/api/v2/health', { token: null })).status).to.equal(200);
    expect(
      (await server.request('GET', '/api/v2/trails/acme/backend/build-1')).body.attestations.map((a: { attestation_name: string }) => a.attestation_name),
    ).to.deep.equal(['back']);
    expect(counts(server.file)).to.deep.equal({ trails: 2, attestations: 1, environments: 0 });
  });

  it('refuses writes once the file is deleted', async () => {
    rmSync(server.file);
    await expectWritesRefused();
  });

  it('refuses writes once another file took its place (a backup moved over it), and leaves that file alone', async () => {
    const copy = `${server.file}.copy`;
    copyFileSync(server.file, copy);
    const before = sha256(readFileSync(copy));
    renameSync(copy, server.file);
    await expectWritesRefused();
    expect(sha256(readFileSync(server.file)), 'the file now at the path, byte for byte').to.equal(before);
  });
});
