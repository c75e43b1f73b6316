/**
 * `trailproof serve --workers N` as an operator runs it: the workers answer on one port, one that
 * dies is replaced while the others go on answering, SIGTERM stops them all, and a pool whose
 * workers cannot listen exits 1 instead of starting them again and again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { call, runCli, runTrailproof, startServerProcess, type ServerProcess } from './support/processes.ts';
import { send } from './support/raw-http.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The requests counted in a Prometheus text for `method` and `status`, all operations. */
function requestCount(text: string, method: string, status: string): number {
  return text
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('trailproof_http_request_duration_seconds_count{') && line.includes(`method="${method}"`) && line.includes(`status="${status}"`),
    )
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** A GET on a connection of its own: the pool hands each new connection to its workers in turn. */
const alone = (base: string, token: string, path: string) => send(base, token, { method: 'GET', path, headers: {}, why: `GET ${path}`, ownConnection: true });

describe('trailproof serve --workers', function () {
  this.timeout(90_000);
  let dir: string;
  let database: string;
  let token: string;
  let pool: ServerProcess | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trailproof-workers-'));
    database = join(dir, 'trailproof.db');
    token = (await runCli(['token', 'create', '--org', 'acme', '--db', database])).trim();
  });
  afterEach(async () => {
    await pool?.stop('SIGKILL');
    pool = undefined;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const entries = (server: ServerProcess) => server.lines.map((line) => JSON.parse(line) as { msg: string; url?: string; pid?: number; worker?: number });
  const workerPids = (server: ServerProcess) => entries(server).flatMap((e) => (e.msg === 'listening' ? [e.pid!] : []));

  it('answers on one port from each worker, replaces one that dies, and stops them all on SIGTERM', async () => {
    pool = await startServerProcess(['--db', database, '--workers', '2'], {}, 2);
    const listening = entries(pool).filter((e) => e.msg === 'listening');
    expect(new Set(listening.map((e) => e.url))).to.have.property('size', 1);
    const [first, second] = workerPids(pool);
    expect(first).to.not.equal(second);
    expect(entries(pool).find((e) => e.msg === 'workers started')).to.include({ workers: 2 });

    const form = new FormData();
    form.append('data_json', JSON.stringify({ name: 'b1' }));
    expect((await call(pool.url, token, 'PUT', '/api/v2/trails/acme/app', { form })).status).to.equal(201);

    // Each request on a connection of its own: the connections go to the workers in turn, and
    // every scrape, whichever worker answers it, counts the requests of both.
    for (let i = 0; i < 12; i++) expect((await alone(pool.url, token, '/api/v2/trails/acme/app/b1')).status).to.equal(200);
    for (let scrape = 0; scrape < 4; scrape++) {
      const metrics = await alone(pool.url, token, '/metrics');
      expect(metrics.status).to.equal(200);
      expect(requestCount(metrics.body, 'GET', '200')).to.equal(12);
      expect(requestCount(metrics.body, 'PUT', '201')).to.equal(1);
    }
    // Each request line names its worker: both answered trails, and both answered scrapes.
    const answeredBy = (path: string) =>
      new Set(entries(pool!).flatMap((e) => (e.msg === 'request' && (e as { path?: string }).path === path ? [e.worker] : [])));
    await until('the request lines', () => (entries(pool!).filter((e) => e.msg === 'request').length >= 17 ? true : undefined));
    expect(answeredBy('/api/v2/trails/acme/app/b1')).to.have.property('size', 2);
    expect(answeredBy('/metrics')).to.have.property('size', 2);

    process.kill(first!, 'SIGKILL');
    await until(
      'the primary to see the worker gone',
      () => entries(pool!).some((e) => e.msg === 'a worker stopped: starting another' && e.pid === first) || undefined,
    );
    expect(entries(pool).find((e) => e.msg === 'pool listening')).to.include({ url: pool.url, workers: 2 });
    // Once the primary has seen it gone, a new connection is answered, by the other worker until
    // the replacement starts (1 s later, the first wait); the connections the killed one held went with it.
    expect((await alone(pool.url, token, '/api/v2/trails/acme/app/b1')).status).to.equal(200);
    const third = await until('a replacement worker', () => workerPids(pool!)[2]);
    expect([first, second]).to.not.include(third);
    for (let i = 0; i < 10; i++) expect((await alone(pool.url, token, '/api/v2/trails/acme/app/b1')).status).to.equal(200);

    expect(await pool.stop('SIGTERM')).to.equal(0);
    expect([second, third].filter((pid) => alive(pid!))).to.deep.equal([]);
  });

  it('exits 1 when its workers cannot listen (the port taken), starting none again; so does a single server', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as { port: number }).port;
      const run = await runTrailproof(['serve', '--db', database, '--workers', '2', '--port', String(port)]);
      expect(run.status, run.stdout + run.stderr).to.equal(1);
      expect(run.stdout).to.contain('a worker stopped before it listened: stopping');
      expect(run.stdout).to.not.contain('starting another');
      // The worker's own error, for the operator to see at once.
      expect(run.stderr).to.contain('EADDRINUSE');
      // One process alone exits too (its store's threads once kept it running after the error).
      const single = await runTrailproof(['serve', '--db', database, '--port', String(port)]);
      expect(single.status, single.stderr).to.equal(1);
      expect(single.stderr).to.contain('EADDRINUSE');
    } finally {
      taken.close();
    }
  });

  it('refuses a number of workers that makes no sense, with exit 2', async () => {
    for (const workers of ['0', 'two', '65']) {
      const run = await runTrailproof(['serve', '--db', database, '--workers', workers]);
      expect(run.status, workers).to.equal(2);
      expect(run.stderr).to.contain('--workers must be a whole number from 1 to 64 or auto');
    }
    const fromEnvironment = await runTrailproof(['serve', '--db', database], { TRAILPROOF_WORKERS: '-1' });
    expect(fromEnvironment.status).to.equal(2);
  });
});
