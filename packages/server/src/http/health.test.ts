// @database
// @alone: makes the PostgreSQL cluster read-only for a while, which the other test files write to
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import BetterSqlite3 from '../store/sqlite/driver.ts';
import pg from 'pg';
import { expect } from 'chai';
import { createApp, openPostgresStore, silentLogger, type AppOptions, type Logger, type Store } from '@trailproof/server';
import { openTestStore, startTestServer, testBackend, type TestServer } from '@trailproof/server/testing';

/** A logger that keeps what it is given, to see what a failed check logged. */
function keptLogger(): Logger & { entries: Array<Record<string, unknown>> } {
  const entries: Array<Record<string, unknown>> = [];
  return { entries, info: (entry) => void entries.push(entry), error: (entry) => void entries.push(entry) };
}

/** A standalone app on `store` on a loopback port. */
async function serve(store: Store, options: Partial<AppOptions> = {}) {
  const server: Server = createServer(createApp({ store, ...options }).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('GET /api/v2/health', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  it('answers 200 {"status":"ok"} without a token, never cached', async () => {
    const res = await server.request('GET', '/api/v2/health', { token: null });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok' });
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
  });

  it("ignores tokens: any organisation's, a read-only one, or a wrong one", async () => {
    for (const token of [server.token, server.readToken, server.otherToken, 'tp_not_a_token']) {
      expect((await server.request('GET', '/api/v2/health', { token })).status, token).to.equal(200);
    }
  });

  it('answers HEAD with the status alone', async () => {
    const res = await fetch(`${server.url}/api/v2/health`, { method: 'HEAD' });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('');
  });

  it('answers other methods 405 in the API error shape', async () => {
    const res = await server.request('POST', '/api/v2/health', { token: null });
    expect(res.status).to.equal(405);
    expect(res.body.message).to.be.a('string');
  });
});

describe('GET /api/v2/health when the database does not answer', () => {
  it('answers 503 with Retry-After, names the database, and logs the cause (a closed store)', async () => {
    const { store, cleanup } = await openTestStore();
    const logger = keptLogger();
    const app = await serve(store, { logger });
    try {
      expect((await fetch(`${app.url}/api/v2/health`)).status).to.equal(200);
      await store.close();
      const res = await fetch(`${app.url}/api/v2/health`);
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('2');
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(await res.json()).to.deep.equal({ message: 'Not ready: the database is unavailable', errors: { database: 'did not answer' } });
      const failed = logger.entries.find((e) => e.msg === 'health check failed');
      expect(failed, 'the cause is logged').to.not.equal(undefined);
      expect(String(failed!.error)).to.match(/destroyed|closed/i);
    } finally {
      await app.close();
      await cleanup();
    }
  });

  it('answers 503 for a store closed before any check ran (PostgreSQL reopened its unused health connection)', async () => {
    const { store, cleanup } = await openTestStore();
    await store.close();
    const logger = keptLogger();
    const app = await serve(store, { logger });
    try {
      const res = await fetch(`${app.url}/readyz`);
      expect(res.status).to.equal(503);
      expect(String(logger.entries.find((e) => e.msg === 'health check failed')?.error)).to.contain('the store is closed');
      expect((await fetch(`${app.url}/api/v2/health`)).status).to.equal(503);
    } finally {
      await app.close();
      await cleanup();
    }
  });

  it('answers 503 once its time is up while a lock holds the read, and 200 after (PostgreSQL)', async function () {
    if (testBackend !== 'postgres') return this.skip(); // a SQLite read in WAL mode waits for no lock
    const { store, schema, location, cleanup } = await openTestStore();
    const logger = keptLogger();
    const app = await serve(store, { logger, health: { timeoutMs: 300 } });
    const locker = new pg.Client({ connectionString: location });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query(`lock table "${schema}".organizations in access exclusive mode`);
      const started = Date.now();
      const res = await fetch(`${app.url}/api/v2/health`);
      const waited = Date.now() - started;
      expect(res.status).to.equal(503);
      expect(((await res.json()) as { errors: unknown }).errors).to.deep.equal({ database: 'did not answer within 300 ms' });
      expect(waited, 'answered when its time was up, not when the lock went').to.be.lessThan(2_000);
      expect(logger.entries.filter((e) => e.msg === 'health check failed').map((e) => e.error)).to.deep.equal(['no answer within 300 ms']);
      // Probes while the first check still waits share it: the pool's connections stay free for requests.
      const probes = await Promise.all([1, 2, 3].map(() => fetch(`${app.url}/api/v2/health`)));
      expect(probes.map((p) => p.status)).to.deep.equal([503, 503, 503]);
      const waiting = await locker.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
      expect(waiting.rows[0].n, 'statements waiting for the lock').to.equal(1);
      await locker.query('rollback');
      expect((await fetch(`${app.url}/api/v2/health`)).status).to.equal(200);
    } finally {
      await locker.end();
      await app.close();
      await store.close();
      await cleanup();
    }
  });
});

describe('GET /api/v2/health on a busy process', () => {
  it('answers 200 while every connection of the pool is taken (PostgreSQL: a connection of its own)', async function () {
    if (testBackend !== 'postgres') return this.skip(); // SQLite reads on a connection no request holds
    const { store: first, schema, location, cleanup } = await openTestStore();
    await first.close();
    const store = await openPostgresStore(location, { schema, maxConnections: 1, connectionTimeoutMs: 5_000 });
    const app = await serve(store, { logger: silentLogger, health: { timeoutMs: 1_000 } });
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    let taken!: () => void;
    const poolTaken = new Promise<void>((resolve) => (taken = resolve));
    // A transaction holds the pool's only connection until released.
    const transaction = store.transaction(async (tx) => {
      await tx.listOrganizations();
      taken();
      await holding;
    });
    try {
      await poolTaken;
      const res = await fetch(`${app.url}/api/v2/health`);
      expect(res.status).to.equal(200);
      const client = new pg.Client({ connectionString: location });
      await client.connect();
      const named = await client
        .query("select count(*)::int as n from pg_stat_activity where application_name = 'trailproof health check'")
        .finally(() => client.end());
      expect(named.rows[0].n, "the health check's own connection, named").to.be.at.least(1);
    } finally {
      release();
      await transaction;
      await app.close();
      await store.close();
      await cleanup();
    }
  });
});

describe('GET /api/v2/health on a database that takes no writes (PostgreSQL)', () => {
  /** Makes the whole cluster read-only (or writable again), as a standby is, and waits until a new session sees it. */
  async function clusterReadOnly(admin: pg.Client, location: string, on: boolean): Promise<void> {
    await admin.query(on ? 'alter system set default_transaction_read_only = on' : 'alter system reset default_transaction_read_only');
    await admin.query('select pg_reload_conf()');
    // The postmaster signals every session when it has read the file again; a session started
    // after that sees the new setting, and every older one applies it before its next statement.
    for (const deadline = Date.now() + 10_000; ; ) {
      const probe = new pg.Client({ connectionString: location });
      await probe.connect();
      const { rows } = await probe.query('show default_transaction_read_only').finally(() => probe.end());
      if (rows[0].default_transaction_read_only === (on ? 'on' : 'off')) return;
      if (Date.now() > deadline) throw new Error('the cluster did not reload its configuration');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('answers 503 "takes no writes" while the cluster is read-only, as writes do (storing nothing), while reads go on; 200 after', async function () {
    if (testBackend !== 'postgres') return this.skip(); // a SQLite file the process can open is one it can write
    const server = await startTestServer();
    const admin = new pg.Client({ connectionString: server.location });
    await admin.connect();
    const attest = (name: string) =>
      server.request('POST', '/api/v2/attestations/acme/backend/trail/build-1/generic', {
        form: { data_json: JSON.stringify({ attestation_name: name, is_compliant: true }), attachment_file: { content: 'evidence', name: 'e.txt' } },
      });
    try {
      expect((await server.request('PUT', '/api/v2/trails/acme/backend', { form: { data_json: JSON.stringify({ name: 'build-1' }) } })).status).to.equal(201);
      expect((await fetch(`${server.url}/api/v2/health`)).status).to.equal(200);
      await clusterReadOnly(admin, server.location, true);
      const res = await fetch(`${server.url}/api/v2/health`);
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('2');
      expect(await res.json()).to.deep.equal({ message: 'Not ready: the database is unavailable', errors: { database: 'takes no writes' } });

      const write = await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'while-read-only', description: 'refused' } });
      expect(write.status, JSON.stringify(write.body)).to.equal(503);
      expect(write.headers.get('retry-after')).to.equal('2');
      expect(write.body.message).to.match(/^The database is unavailable; try again shortly/);
      const attested = await attest('while-read-only');
      expect(attested.status, JSON.stringify(attested.body)).to.equal(503);
      expect(attested.headers.get('retry-after')).to.equal('2');
      const read = await server.request('GET', '/api/v2/trails/acme/backend/build-1');
      expect(read.status, 'reads go on').to.equal(200);

      await clusterReadOnly(admin, server.location, false);
      expect((await fetch(`${server.url}/api/v2/health`)).status).to.equal(200);
      expect((await server.request('GET', '/api/v2/flows/acme/while-read-only')).status, 'the refused write stored nothing').to.equal(404);
      expect(await server.attestations('backend', 'build-1'), 'nor the refused attestation').to.have.length(0);
      expect((await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'while-read-only', description: 'stored' } })).status).to.equal(201);
      expect((await attest('after')).status).to.equal(201);
      expect((await server.attestations('backend', 'build-1')).map((a) => a.name)).to.deep.equal(['after']);
    } finally {
      await clusterReadOnly(admin, server.location, false).catch(() => {});
      await admin.end();
      await server.close();
    }
  });
});

/** Deletes the newest row of schema_migrations behind the store's back, as an older release's rollback would leave it. */
async function forgetNewestMigration(opened: { location: string; schema?: string }) {
  const statement = 'delete from schema_migrations where name = (select max(name) from schema_migrations)';
  if (opened.schema === undefined) {
    const raw = new BetterSqlite3(opened.location);
    try {
      raw.prepare(statement).run();
    } finally {
      raw.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: opened.location });
  await client.connect();
  try {
    await client.query(`set search_path to "${opened.schema}"`);
    await client.query(statement);
  } finally {
    await client.end();
  }
}

describe('GET /livez, GET /readyz and GET /ready (the standalone app)', () => {
  let opened: Awaited<ReturnType<typeof openTestStore>>;
  let app: Awaited<ReturnType<typeof serve>>;
  beforeEach(async () => {
    opened = await openTestStore();
    app = await serve(opened.store, { logger: silentLogger });
  });
  afterEach(async () => {
    await app.close();
    await opened.store.close();
    await opened.cleanup();
  });
  const get = async (path: string, method = 'GET') => {
    const res = await fetch(app.url + path, { method });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };

  it('each answers 200 {"status":"ok"} without a token, never cached, and HEAD too', async () => {
    for (const path of ['/livez', '/readyz', '/ready']) {
      const res = await get(path);
      expect(res, path).to.deep.include({ status: 200, body: { status: 'ok' } });
      expect(res.headers.get('cache-control'), path).to.equal('no-store');
      expect((await get(path, 'HEAD')).status, path).to.equal(200);
    }
  });

  it('live while the database is gone (never asked); not ready, with Retry-After and the reason, at /readyz and /ready alike', async () => {
    expect((await get('/readyz')).status).to.equal(200);
    await opened.store.close();
    expect((await get('/livez')).status).to.equal(200);
    for (const path of ['/readyz', '/ready']) {
      const ready = await get(path);
      expect(ready.status, path).to.equal(503);
      expect(ready.headers.get('retry-after'), path).to.equal('2');
      expect(ready.body, path).to.deep.equal({ message: 'Not ready: the database is unavailable', errors: { database: 'did not answer' } });
    }
  });

  it('not ready while the database lacks the newest migration this server needs', async () => {
    await forgetNewestMigration(opened);
    const ready = await get('/readyz');
    expect(ready.status).to.equal(503);
    expect(ready.body.errors).to.deep.equal({ database: 'lacks migrations this server needs' });
    expect((await get('/livez')).status).to.equal(200);
  });

  it('other paths and methods pass on to the app: 404 for /livez/x and POST /livez', async () => {
    expect((await get('/livez/x')).status).to.equal(404);
    expect((await get('/livez', 'POST')).status).to.equal(404);
  });
});
