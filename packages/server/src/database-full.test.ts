// @database
/**
 * A database with no room left (a full disk; here a SQLite file at its `maxSizeBytes`): writes that
 * do not fit answer 507 and store nothing, those acknowledged are stored, reads go on.
 */
import { createHash, randomBytes } from 'node:crypto';
import { rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from './store/sqlite/driver.ts';
import { expect } from 'chai';
import { openSqliteStore } from '@trailproof/server';
import { startTestServer, testBackend, type TestResponse, type TestServer } from '@trailproof/server/testing';
import { databaseFingerprint, sqliteIntegrity } from '../../../test/support/db-fingerprint.ts';
import { fillUp, mountSmallDisk, skipSaying, type SmallDisk } from '../../../test/support/file-systems.ts';

describe('a database with no room left (SQLite at its maxSizeBytes)', () => {
  let server: TestServer;
  before(async function () {
    if (testBackend !== 'sqlite') return this.skip(); // a full PostgreSQL disk cannot be made here
    server = await startTestServer({ sqlite: { maxSizeBytes: 4 * 1024 * 1024 } });
    const begun = await server.request('PUT', '/api/v2/trails/acme/backend', { form: { data_json: JSON.stringify({ name: 'build-1' }) } });
    expect(begun.status).to.equal(201);
  });
  after(() => server?.close());

  it('answers 507 to the writes that do not fit, stores every write it acknowledged and none it refused, and goes on reading', async () => {
    // Into 4MB.
    const { acknowledged, refused } = await attestMany(server, 'a');
    expect(acknowledged.length, 'some fit').to.be.greaterThan(3);
    expect(refused, 'some do not').to.be.greaterThan(3);
    const stored = (await server.attestations('backend', 'build-1')).map((a) => a.name);
    expect([...stored].sort()).to.deep.equal([...acknowledged].sort());

    // Reads go on, and the health check (which reads) says the process serves.
    const trail = await server.request('GET', '/api/v2/trails/acme/backend/build-1');
    expect(trail.status).to.equal(200);
    expect((await server.request('GET', '/api/v2/health', { token: null })).status).to.equal(200);
    // A stored attachment reads back whole.
    const first = await server.request(
      'GET',
      `/api/v2/trails/acme/backend/build-1/attestations/${trail.body.attestations?.[0]?.attestation_id ?? ''}/attachment`,
    );
    expect(first.status).to.equal(200);
    expect(first.bytes.length).to.equal(256 * 1024);
  });
});

/**
 * A real full file system: the database on a small tmpfs the test mounts (root only). SQLite
 * rolls a transaction back by itself when a write meets ENOSPC, which took another path than the
 * cap above (the driver's own ROLLBACK then failed and its error replaced SQLITE_FULL: a 500).
 */
describe('a database on a full file system (SQLite on a small tmpfs)', function () {
  this.timeout(120_000);
  let disk: SmallDisk | undefined;
  let server: TestServer | undefined;
  let filler = '';

  before(async function () {
    if (testBackend !== 'sqlite') return skipSaying(this, 'a full PostgreSQL disk cannot be made here');
    const mounted = mountSmallDisk('16m');
    if (typeof mounted === 'string') return skipSaying(this, mounted);
    disk = mounted;
    filler = join(disk.dir, 'filler');
    server = await startTestServer({ directory: disk.dir });
    const ok = (res: TestResponse) => expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
    ok(await server.request('PUT', '/api/v2/trails/acme/backend', { form: { data_json: JSON.stringify({ name: 'build-1' }) } }));
    ok(await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'prod', type: 'K8S' } }));
  });
  after(async () => {
    await server?.close();
    disk?.remove();
  });

  const attest = (name: string) => attestOn(server!, name, 1000);
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  /** One of each kind of write the issue found answering 500. */
  const writes = (n: number) => ({
    attestation: () => attest(`full-${n}`),
    'begin trail': () => server!.request('PUT', '/api/v2/trails/acme/backend', { form: { data_json: JSON.stringify({ name: `full-${n}` }) } }),
    approval: () =>
      server!.request('POST', '/api/v2/approvals/acme/backend', { json: { artifact_fingerprint: sha(`full-${n}`), description: 'full', src_commit_list: [] } }),
    'environment report': () =>
      server!.request('PUT', '/api/v2/environments/acme/prod/report/K8S', {
        json: { artifacts: [{ podName: `p${n}`, namespace: 'prod', digests: { api: sha(`api-${n}`) }, creationTimestamp: 1_763_800_000 }] },
      }),
  });

  it('answers 507 to every kind of write and stores nothing, goes on reading, and writes again once there is room', async () => {
    const file = server!.file;
    // The WAL emptied and the disk filled to the last byte: every write now needs room the disk has
    // not got. Nothing of the server's may commit in between, since a write reuses the room of a
    // WAL already copied back: the log's checkpoint of the set-up's writes (due up to a second
    // after them) is made first, and TRUNCATE, which gives up while another connection is in the
    // WAL, is tried until it has emptied it.
    await server!.store.makeCheckpoints!();
    const direct = new BetterSqlite3(file);
    for (let tries = 1; (direct.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>)[0]!.busy !== 0; tries++) {
      if (tries === 100) throw new Error('the WAL could not be emptied: another connection stayed in it');
      await sleep(20);
    }
    direct.close();
    fillUp(filler);
    expect(statSync(`${file}-wal`).size, 'the WAL is empty').to.equal(0);
    const before = await databaseFingerprint({ file });

    for (const [kind, write] of Object.entries(writes(1))) {
      const res = await write();
      expect(res.status, `${kind}: ${JSON.stringify(res.body)}`).to.equal(507);
      expect(res.body.message, kind).to.match(insufficientStorage);
      if ('errors' in res.body) expect(res.body.errors, kind).to.be.an('object');
    }
    expect(await databaseFingerprint({ file }), 'nothing stored').to.deep.equal(before);
    expect((await server!.request('GET', '/api/v2/trails/acme/backend/build-1')).status).to.equal(200);
    expect((await server!.request('GET', '/api/v2/environments/acme/prod')).status).to.equal(200);
    expect((await server!.request('GET', '/api/v2/health', { token: null })).status).to.equal(200);
    expect(sqliteIntegrity(file)).to.equal('ok');

    // Room comes back: each kind of write works again.
    rmSync(filler);
    for (const [kind, write] of Object.entries(writes(2))) {
      const res = await write();
      expect(res.status, `${kind}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
    }
    expect(sqliteIntegrity(file)).to.equal('ok');
  });

  it('keeps every write it acknowledged and none it refused when the disk fills under concurrent writes', async () => {
    const file = server!.file;
    // About 2MB of room.
    fillUp(filler);
    truncateSync(filler, Math.max(0, statSync(filler).size - 2 * 1024 * 1024));
    const { acknowledged, refused } = await attestMany(server!, 'c');
    expect(acknowledged.length, 'some fit').to.be.greaterThan(0);
    expect(refused, 'some do not').to.be.greaterThan(0);
    const storedNow = (await server!.attestations('backend', 'build-1')).map((a) => a.name).filter((name) => name.startsWith('c'));
    expect([...storedNow].sort()).to.deep.equal([...acknowledged].sort());

    // Room again; then what a fresh open of the file finds (after the WAL is checkpointed) is what was acknowledged.
    rmSync(filler);
    expect((await attest('after')).status).to.equal(201);
    await server!.stop();
    expect(sqliteIntegrity(file)).to.equal('ok');
    const reopened = await openSqliteStore(file);
    try {
      const trail = await reopened.findTrail(Number((await reopened.findOrganization('acme'))!.id), 'backend', 'build-1');
      const stored = (await reopened.listAttestations(trail!.id)).map((a) => a.name);
      expect(stored.filter((name) => name.startsWith('c')).sort()).to.deep.equal([...acknowledged].sort());
      expect(stored).to.include('after');
    } finally {
      await reopened.close();
    }
  });
});

const insufficientStorage = /^Insufficient storage: the database is full, and nothing of this request was stored \(request [0-9a-f-]+\)$/;

const attestOn = (server: TestServer, name: string, bytes: number) =>
  server.request('POST', '/api/v2/attestations/acme/backend/trail/build-1/generic', {
    form: { data_json: JSON.stringify({ attestation_name: name, is_compliant: true }), attachment_file: { content: randomBytes(bytes), name: `${name}.bin` } },
  });

/**
 * 24 attestations of 256KB on acme/backend/build-1, 8 at a time (they share batches on the writer
 * thread), named `prefix0` to `prefix23`: the names acknowledged (201), after checking that every
 * other one answered 507 as a full database does.
 */
async function attestMany(server: TestServer, prefix: string): Promise<{ acknowledged: string[]; refused: number }> {
  const answers: Array<{ name: string; status: number; message?: string }> = [];
  for (let round = 0; round < 3; round++) {
    const names = Array.from({ length: 8 }, (_, i) => `${prefix}${round * 8 + i}`);
    const results = await Promise.all(names.map((name) => attestOn(server, name, 256 * 1024)));
    results.forEach((res, i) => answers.push({ name: names[i]!, status: res.status, message: res.body?.message }));
  }
  const refused = answers.filter((a) => a.status !== 201);
  for (const answer of refused) {
    expect(answer.status, JSON.stringify(answer)).to.equal(507);
    expect(answer.message).to.match(insufficientStorage);
  }
  return { acknowledged: answers.filter((a) => a.status === 201).map((a) => a.name), refused: refused.length };
}
