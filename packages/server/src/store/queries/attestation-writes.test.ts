// @database
/**
 * The attestation write path on each backend: SQLite's writer thread (writer-thread.ts) taking
 * turns with the store's own writer, PostgreSQL's batches (batchedWrites), and what both promise:
 * every acknowledged attestation stored with its chain record, a bad one failing alone, nothing
 * lost when the store closes with writes pending, and two stores (two processes) on one database.
 */
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from '../sqlite/driver.ts';
import { expect } from 'chai';
import pg from 'pg';
import type { Store } from '@trailproof/server';
import { builtServer, builtTesting } from '../../../../../test/support/built-testing.ts';
import type { AttestationAppend } from './attestations.ts';

describe('storing attestations (writer thread, batches)', function () {
  this.timeout(60_000);
  let store: Store;
  let location = '';
  let schema: string | undefined;
  let cleanup: () => void | Promise<void> = () => {};
  let organizationId = 0;

  /** A second store on the same database, as a second server process has. */
  const openAnother = async () => {
    const { openPostgresStore, openSqliteStore } = await builtServer();
    return schema === undefined ? openSqliteStore(location) : openPostgresStore(location, { schema });
  };

  beforeEach(async () => {
    // The built store: its writer thread and each verification's thread start without compiling the sources (tsx).
    ({ store, location, schema, cleanup } = await (await builtTesting()).openTestStore());
    organizationId = Number((await store.ensureOrganization('acme', 1)).id);
    const flow = await store.ensureFlow(organizationId, 'app', 1);
    await store.upsertTrail(flow.id, { name: 't1' }, null, 1, null);
    await store.upsertTrail(flow.id, { name: 't2' }, null, 1, null);
  });
  afterEach(async () => {
    await store.close().catch(() => {});
    await cleanup();
  });

  const attestation = (name: string, overrides: Partial<AttestationAppend> = {}): AttestationAppend => ({
    organizationId,
    flow: 'app',
    trail: 't1',
    name,
    type: 'generic',
    dataJson: JSON.stringify({ attestation_name: name }),
    artifactFingerprint: null,
    attachment: { content: randomBytes(2048), name: `${name}.bin` },
    compliant: true,
    createdBy: null,
    at: 2,
    ...overrides,
  });

  const storedOn = async (s: Store, trail: string) => {
    const found = (await s.findTrail(organizationId, 'app', trail))!;
    return s.listAttestations(found.id);
  };

  it('stores concurrent attestations while other writes go on, each with its chain record', async () => {
    const flow = (await store.findFlow(organizationId, 'app'))!;
    const writes: Array<Promise<unknown>> = [];
    for (let i = 0; i < 200; i++) {
      writes.push(store.appendAttestation(attestation(`a${i}`, { trail: i % 2 ? 't1' : 't2' })));
      // Writes of the store's own connection in between (on SQLite they pause the writer thread).
      if (i % 10 === 0) writes.push(store.upsertTrail(flow.id, { name: `other-${i}`, description: 'meanwhile' }, null, 3, null));
      if (i % 25 === 0) writes.push(store.transaction((tx) => tx.upsertTrail(flow.id, { name: 't1', description: `begun again ${i}` }, null, 3, null)));
    }
    const results = await Promise.all(writes);
    const ids = results.filter((r): r is { id: number; trailId: number } => typeof r === 'object' && r !== null && 'trailId' in r).map((r) => r.id);
    expect(ids).to.have.length(200);
    expect(new Set(ids).size).to.equal(200);
    expect((await storedOn(store, 't1')).length + (await storedOn(store, 't2')).length).to.equal(200);
    const verified = await store.verifyChain(organizationId, 'acme');
    expect(verified.firstBroken).to.equal(null);
    // 2 trails begun first, 200 attestations, 20 other trails, 8 begins again.
    expect(verified.records).to.equal(2 + 200 + 20 + 8);
  });

  it('keeps the token of each attestation in a batch of otherwise identical ones', async () => {
    const tokens = ['tokenAAAAAAAAAAA', 'tokenBBBBBBBBBBB', null, 'tokenAAAAAAAAAAA'];
    const content = randomBytes(64);
    // Identical but for the token, in one batch: RETURNING's rows are matched back to their inputs by content.
    const results = await Promise.all(
      tokens.map((createdBy) => store.appendAttestation(attestation('same', { createdBy, attachment: { content, name: 'same.bin' } }))),
    );
    const byId = new Map((await storedOn(store, 't1')).map((a) => [a.id, a.createdBy?.tokenId ?? null]));
    expect(results.map((r) => ('id' in r ? byId.get(r.id) : 'missing'))).to.deep.equal(tokens);
    expect((await store.verifyChain(organizationId, 'acme')).firstBroken).to.equal(null);
  });

  it('answers which of flow and trail is missing, storing nothing', async () => {
    expect(await store.appendAttestation(attestation('x', { trail: 'nope' }))).to.deep.equal({ missing: 'trail' });
    expect(await store.appendAttestation(attestation('x', { flow: 'nope' }))).to.deep.equal({ missing: 'flow' });
    const stored = await store.appendAttestation(attestation('y'));
    expect(stored).to.have.property('id').that.is.a('number');
    expect((await storedOn(store, 't1')).map((a) => a.name)).to.deep.equal(['y']);
    expect((await store.verifyChain(organizationId, 'acme')).records).to.equal(3);
  });

  it('fails a bad attestation alone, with the database error, when it shares a batch with good ones', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => store.appendAttestation(attestation(`b${i}`, i === 13 ? { name: null as unknown as string } : {}))),
    );
    const rejected = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [{ i, error: o.reason as { code?: unknown; message: string } }] : []));
    expect(rejected.map((r) => r.i)).to.deep.equal([13]);
    // The cause crosses the thread boundary with its code (SQLite's, or PostgreSQL's not_null_violation).
    expect(rejected[0]!.error.code).to.be.oneOf(['SQLITE_CONSTRAINT_NOTNULL', '23502']);
    expect(await storedOn(store, 't1')).to.have.length(29);
    const verified = await store.verifyChain(organizationId, 'acme');
    expect(verified.firstBroken).to.equal(null);
    expect(verified.records).to.equal(2 + 29);
  });

  it('stores what was pending when the store closes, and it is there when opened again', async () => {
    const pending = Array.from({ length: 50 }, (_, i) => store.appendAttestation(attestation(`c${i}`)));
    await store.close();
    // Closing again (a caller's `finally` after a shutdown) resolves too.
    await store.close();
    const outcomes = await Promise.allSettled(pending);
    expect(outcomes.filter((o) => o.status === 'rejected')).to.deep.equal([]);
    store = await openAnother();
    expect(await storedOn(store, 't1')).to.have.length(50);
    expect((await store.verifyChain(organizationId, 'acme')).firstBroken).to.equal(null);
  });

  it('PostgreSQL: attachments are compressed with lz4 (or kept uncompressed), never with pglz', async function () {
    if (schema === undefined) this.skip();
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    try {
      const { rows } = await client.query(
        `select a.attcompression as compression, a.attstorage as storage from pg_attribute a join pg_class c on c.oid = a.attrelid
         join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relname = 'blobs' and a.attname = 'content'`,
        [schema],
      );
      expect(rows).to.have.length(1);
      // 'l' = lz4; without lz4 support the column is EXTERNAL ('e': out of line, uncompressed).
      expect(rows[0].compression === 'l' || rows[0].storage === 'e', JSON.stringify(rows[0])).to.equal(true);
    } finally {
      await client.end();
    }
  });

  it('SQLite: reads do not wait for a write batch that another connection holds up', async function () {
    if (schema !== undefined) this.skip();
    const flow = (await store.findFlow(organizationId, 'app'))!;
    const trail = (await store.findTrail(organizationId, 'app', 't1'))!;
    // Another process holds the write lock: the writer thread's next batch waits in SQLite's busy handler.
    const other = new BetterSqlite3(location);
    other.exec('BEGIN IMMEDIATE');
    let released = false;
    const release = setTimeout(() => {
      other.exec('COMMIT');
      released = true;
    }, 1500);
    try {
      const held = store.appendAttestation(attestation('held'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Every read of the evidence model answers meanwhile, from the read connection.
      const reads = await Promise.all([
        store.getFlowRecord(organizationId, 'app'),
        store.listFlowRecords(organizationId),
        store.listTrailPage(flow.id, 0, 10),
        store.getTrailById(trail.id),
        store.findTrail(organizationId, 'app', 't1'),
        store.attestationsOfFingerprints(organizationId, ['f'.repeat(64)]),
        store.artifactNameOf(organizationId, 'f'.repeat(64)),
        store.deployedNameOf(organizationId, 'f'.repeat(64)),
        store.findEnvironment(organizationId, 'acme', 'prod'),
        store.typesOfEnvironments(organizationId, ['prod']),
        store.getSnapshot(1, -1),
      ]);
      expect(released, 'a read waited for the held write').to.equal(false);
      expect(reads[0]?.name).to.equal('app');
      expect(reads[2].items.map((t) => t.name).sort()).to.deep.equal(['t1', 't2']);
      // The held attestation is stored once the lock is released (the busy timeout is 5 s).
      expect(await held).to.have.property('id');
      expect(released).to.equal(true);
    } finally {
      clearTimeout(release);
      if (!released) other.exec('COMMIT');
      other.close();
    }
  });

  it('two stores on one database (two processes) store the same attachments at once, in opposite orders', async () => {
    const other = await openAnother();
    try {
      const contents = Array.from({ length: 40 }, () => randomBytes(4096));
      const from = (s: Store, order: Buffer[], prefix: string) =>
        order.map((content, i) => s.appendAttestation(attestation(`${prefix}${i}`, { attachment: { content, name: 'same.bin' } })));
      const results = await Promise.all([...from(store, contents, 'p'), ...from(other, [...contents].reverse(), 'q')]);
      expect(results.every((r) => 'id' in r)).to.equal(true);
      const stored = await storedOn(store, 't1');
      expect(stored).to.have.length(80);
      expect(new Set(stored.map((a) => a.attachmentSha256)).size).to.equal(40);
      expect((await store.verifyChain(organizationId, 'acme')).firstBroken).to.equal(null);
    } finally {
      await other.close();
    }
  });
});
