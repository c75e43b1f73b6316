/**
 * When PostgreSQL goes away under load, requests fail fast with 503 and Retry-After instead of
 * hanging, and the same server process recovers by itself when the database returns.
 */
import { execSync } from 'node:child_process';
import { expect } from 'chai';
import { testBackend } from '@trailproof/server/testing';
import { call, createDatabase, runCli, startServerProcess, type ServerProcess } from './support/processes.ts';

describe('PostgreSQL restarted under load', function () {
  this.timeout(120_000);
  let server: ServerProcess | undefined;
  let token = '';
  let drop: () => Promise<void> = async () => {};
  const pgCtl = (action: string) => execSync(`${process.env.TRAILPROOF_PG_CTL} ${action}`, { stdio: 'ignore' });

  before(async function () {
    if (testBackend !== 'postgres' || !process.env.TRAILPROOF_PG_CTL) return this.skip();
    const database = await createDatabase(process.env.TRAILPROOF_TEST_DATABASE!, 'faults');
    drop = database.drop;
    token = runCli(['token', 'create', '--org', 'acme', '--database', database.url]).trim();
    server = await startServerProcess(['--database', database.url]);
  });
  after(async () => {
    await server?.stop();
    await drop();
  });

  it('answers 503 with Retry-After quickly while the database is down, then recovers without a restart', async () => {
    const url = server!.url;
    const list = () => call(url, token, 'GET', '/api/v2/environments/acme');
    expect((await list()).status).to.equal(200);

    // Load: four clients listing continuously while the database stops and starts.
    let running = true;
    const seen: Array<{ status: number; ms: number; retryAfter: string | null }> = [];
    const client = async () => {
      while (running) {
        const started = Date.now();
        const res = await list();
        seen.push({ status: res.status, ms: Date.now() - started, retryAfter: res.headers.get('retry-after') });
      }
    };
    const clients = [client(), client(), client(), client()];

    await new Promise((r) => setTimeout(r, 300));
    pgCtl('stop -m fast');
    const downFrom = seen.length;
    await new Promise((r) => setTimeout(r, 3_000));
    const duringOutage = seen.slice(downFrom);
    pgCtl('start');

    // Recovery: the same process answers 200 again within 30 s.
    const recoveredBy = Date.now() + 30_000;
    let recovered = false;
    while (Date.now() < recoveredBy && !recovered) {
      recovered = (await list()).status === 200;
      if (!recovered) await new Promise((r) => setTimeout(r, 250));
    }
    running = false;
    await Promise.all(clients);

    expect(duringOutage.length, 'requests answered during the outage').to.be.greaterThan(0);
    const unavailable = duringOutage.filter((r) => r.status === 503);
    expect(unavailable.length, 'some requests were 503').to.be.greaterThan(0);
    expect(duringOutage.every((r) => r.status === 503 || r.status === 200), JSON.stringify(duringOutage.slice(0, 5))).to.equal(true);
    expect(unavailable.every((r) => r.retryAfter === '2')).to.equal(true);
    // "Fast": bounded by the connection timeout (3 s), far from a hang. A bound, not a benchmark.
    expect(Math.max(...unavailable.map((r) => r.ms))).to.be.lessThan(10_000);
    expect(recovered, 'recovered after the database returned').to.equal(true);
    expect(server!.child.exitCode).to.equal(null);
  });
});
