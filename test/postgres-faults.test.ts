// @database
// @alone: stops and starts the PostgreSQL server that the other test files use
/**
 * When PostgreSQL goes away under load (reads and writes), requests fail fast with 503 and
 * Retry-After instead of hanging, nothing acknowledged is lost, and the same server process
 * recovers by itself when the database returns. A statement stuck behind a lock is cancelled by
 * the statement timeout and answered 503, never left hanging.
 */
import { execSync } from 'node:child_process';
import { expect } from 'chai';
import pg from 'pg';
import { testBackend, waitUntil } from '@trailproof/server/testing';
import { call, createDatabase, runCli, startServerProcess, type ServerProcess } from './support/processes.ts';

describe('PostgreSQL restarted under load', function () {
  this.timeout(120_000);
  let server: ServerProcess | undefined;
  let token = '';
  let databaseUrl = '';
  let drop: () => Promise<void> = async () => {};
  const pgCtl = (action: string) => execSync(`${process.env.TRAILPROOF_PG_CTL} ${action}`, { stdio: 'ignore' });

  before(async function () {
    if (testBackend !== 'postgres' || !process.env.TRAILPROOF_PG_CTL) return this.skip();
    const database = await createDatabase(process.env.TRAILPROOF_TEST_DATABASE!, 'faults');
    drop = database.drop;
    databaseUrl = database.url;
    token = (await runCli(['token', 'create', '--org', 'acme', '--database', database.url])).trim();
    server = await startServerProcess(['--database', database.url], { TRAILPROOF_PG_STATEMENT_TIMEOUT_MS: '1500' });
  });
  after(async () => {
    await server?.stop();
    await drop();
  });

  it('answers 503 with Retry-After quickly while the database is down, loses nothing acknowledged, then recovers without a restart', async () => {
    const url = server!.url;
    const list = () => call(url, token, 'GET', '/api/v2/environments/acme');
    expect((await list()).status).to.equal(200);
    const trailForm = () => {
      const form = new FormData();
      form.append('data_json', JSON.stringify({ name: 'build-1' }));
      return form;
    };
    expect((await call(url, token, 'PUT', '/api/v2/trails/acme/app', { form: trailForm() })).status).to.equal(201);

    // Load: three clients listing and two attesting continuously while the database stops and starts.
    let running = true;
    let attested = 0;
    const seen: Array<{ status: number; ms: number; retryAfter: string | null }> = [];
    const acknowledged: string[] = [];
    const attest = () => {
      const name = `unit-${++attested}`;
      const form = new FormData();
      form.append(
        'data_json',
        JSON.stringify({ attestation_name: name, junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 0.1 }] }),
      );
      return call(url, token, 'POST', '/api/v2/attestations/acme/app/trail/build-1/junit', { form }).then((res) => {
        if (res.status === 201) acknowledged.push(name);
        return res;
      });
    };
    const client = async (request: () => ReturnType<typeof call>) => {
      while (running) {
        const started = Date.now();
        const res = await request();
        seen.push({ status: res.status, ms: Date.now() - started, retryAfter: res.headers.get('retry-after') });
      }
    };
    const clients = [client(list), client(list), client(list), client(attest), client(attest)];

    await new Promise((r) => setTimeout(r, 300));
    pgCtl('stop -m fast');
    const downFrom = seen.length;
    await new Promise((r) => setTimeout(r, 3_000));
    const duringOutage = seen.slice(downFrom);
    // The health check says so too, without a token, within its own time limit.
    const healthStarted = Date.now();
    const health = await fetch(`${url}/api/v2/health`);
    const healthMs = Date.now() - healthStarted;
    pgCtl('start');

    // Recovery: the same process answers 200 again within 30 s.
    const recovered = await waitUntil(async () => (await list()).status === 200, 30_000, 250);
    running = false;
    await Promise.all(clients);

    expect(duringOutage.length, 'requests answered during the outage').to.be.greaterThan(0);
    const unavailable = duringOutage.filter((r) => r.status === 503);
    expect(unavailable.length, 'some requests were 503').to.be.greaterThan(0);
    expect(
      duringOutage.every((r) => [200, 201, 503].includes(r.status)),
      JSON.stringify(duringOutage.filter((r) => ![200, 201, 503].includes(r.status)).slice(0, 5)),
    ).to.equal(true);
    expect(unavailable.every((r) => r.retryAfter === '2')).to.equal(true);
    // "Fast": bounded by the connection timeout (3 s), far from a hang. A bound, not a benchmark.
    expect(Math.max(...unavailable.map((r) => r.ms))).to.be.lessThan(10_000);
    expect(recovered, 'recovered after the database returned').to.equal(true);
    expect(health.status, 'health during the outage').to.equal(503);
    expect(health.headers.get('retry-after')).to.equal('2');
    expect(((await health.json()) as { errors: { database: unknown } }).errors.database).to.be.a('string');
    expect(healthMs, "bounded by the health check's 2 s limit").to.be.lessThan(5_000);
    expect((await fetch(`${url}/api/v2/health`)).status, 'health after recovery').to.equal(200);
    expect(server!.child.exitCode).to.equal(null);

    // Every attestation answered 201 is stored; the rest were told to retry (503), never a 500.
    expect(acknowledged.length, 'attestations acknowledged').to.be.greaterThan(0);
    expect(seen.filter((r) => r.status >= 500 && r.status !== 503)).to.deep.equal([]);
    // The trail answers its attestations a page at a time: every page is read.
    const stored = new Set<string>();
    for (let href: string | undefined = '/api/v2/trails/acme/app/build-1'; href; ) {
      const trail = await call(url, token, 'GET', href);
      expect(trail.status).to.equal(200);
      for (const a of trail.body.attestations as Array<{ attestation_name: string }>) stored.add(a.attestation_name);
      href = trail.body.attestations_pagination._links.next?.href;
    }
    expect(
      acknowledged.filter((name) => !stored.has(name)),
      'acknowledged but missing',
    ).to.deep.equal([]);
  });

  it('cancels a statement stuck behind a lock (statement timeout) with 503 instead of hanging', async () => {
    const url = server!.url;
    const form = new FormData();
    form.append('data_json', JSON.stringify({ name: 'build-locked' }));
    // Another session holds the organisation's row lock, which every evidence write takes to append to the chain.
    const blocker = new pg.Client({ connectionString: databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query("select id from organizations where name = 'acme' for update");
      const started = Date.now();
      const stuck = await call(url, token, 'PUT', '/api/v2/trails/acme/app', { form });
      const ms = Date.now() - started;
      expect(stuck.status, JSON.stringify(stuck.body)).to.equal(503);
      expect(stuck.headers.get('retry-after')).to.equal('2');
      expect(ms, 'cancelled near the 1.5 s statement timeout').to.be.within(1_000, 8_000);
    } finally {
      await blocker.query('rollback').catch(() => {});
      await blocker.end();
    }
    // Nothing half-written: the trail does not exist, and beginning it now works.
    expect((await call(url, token, 'GET', '/api/v2/trails/acme/app/build-locked')).status).to.equal(404);
    const again = new FormData();
    again.append('data_json', JSON.stringify({ name: 'build-locked' }));
    expect((await call(url, token, 'PUT', '/api/v2/trails/acme/app', { form: again })).status).to.equal(201);
  });
});
