// @database
/**
 * Exports cut off by their client (issue 46, finding 1): a read-only token, `GET
 * /log/{org}/export`, and the connection closed while the package is being written. The
 * process used to exit on an unhandled ERR_STREAM_PREMATURE_CLOSE (the pipeline failed while the
 * exporter awaited the database, and nothing was waiting for it), and a worker pool lost a
 * worker per aborted export. Real server processes, on SQLite and on PostgreSQL
 * (TRAILPROOF_TEST_DATABASE).
 */
import { request } from 'node:http';
import { expect } from 'chai';
import { waitUntil } from '@trailproof/server/testing';
import { call, runCli, startServerProcess, type ServerProcess } from '../support/processes.ts';
import { startChildServer, type ChildServer } from './child-server.ts';
import { untilReady, whileProbingHealth } from './health-probe.ts';

/** Trails in the log: each one's begin makes the exporter read its trail and judge it, query after query. */
const trailCount = 240;
/** Exports started at once, each cut off after another number of chunks. */
const burst = 16;
const rounds = 3;
const exportPath = '/api/v2/log/acme/export';
const env = { TRAILPROOF_CHECKPOINT_INTERVAL_MS: '0' };

/** Starts an export and closes the connection once `bytes` bytes of it came; resolves with how many did. */
function abortedExport(url: string, token: string, bytes: number): Promise<number> {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    let seen = 0;
    const req = request({ host: hostname, port, path: exportPath, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.on('data', (chunk: Buffer) => {
        seen += chunk.byteLength;
        if (seen >= bytes) req.destroy();
      });
      res.on('end', () => resolve(seen));
      res.on('close', () => resolve(seen));
    });
    req.on('error', () => resolve(seen));
    req.end();
  });
}

/** A whole export: its status and size. */
async function wholeExport(url: string, token: string): Promise<{ status: number; bytes: number }> {
  const answer = await fetch(url + exportPath, { headers: { authorization: `Bearer ${token}` } });
  return { status: answer.status, bytes: (await answer.arrayBuffer()).byteLength };
}

/**
 * Bursts of exports, each cut off at another of 40 points spread over the package of `packageBytes`
 * (by bytes: cut after a number of chunks, 1 to 40, most of them outlived the package's 8 or so
 * chunks and were exported whole).
 */
async function abortBursts(url: string, token: string, packageBytes: number, size = burst) {
  const probed = await whileProbingHealth({ url }, async () => {
    const seen: number[] = [];
    for (let round = 0; round < rounds; round++) {
      seen.push(
        ...(await Promise.all(
          Array.from({ length: size }, (_, i) => abortedExport(url, token, Math.ceil((packageBytes * (1 + ((i * 7 + round) % 40))) / 41))),
        )),
      );
    }
    return seen;
  });
  // A cut near the end may come with the package's last chunk; most must land inside it.
  const cut = probed.result.filter((bytes) => bytes < packageBytes).length;
  expect(cut, `exports cut off before their end, of ${probed.result.length}`).to.be.at.least(probed.result.length / 2);
  return probed;
}

describe('hostile clients: exports cut off half-way, against server processes', function () {
  this.timeout(300_000);
  let server: ChildServer;
  let readToken: string;
  /** The size of the whole package, which the cuts are spread over. */
  let packageBytes = 0;
  let pool: ServerProcess | undefined;

  before(async () => {
    server = await startChildServer(env);
    readToken = (await runCli(['token', 'create', '--org', 'acme', '--read-only', ...server.database])).trim();
    for (let from = 0; from < trailCount; from += 8) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const form = new FormData();
          form.append('data_json', JSON.stringify({ name: `build-${from + i}` }));
          const begun = await call(server.url, server.token, 'PUT', '/api/v2/trails/acme/app', { form });
          expect(begun.status, JSON.stringify(begun.body)).to.equal(201);
        }),
      );
    }
    // The export answers 404 until the log has a signed checkpoint.
    const signed = await waitUntil(
      async () => {
        const whole = await wholeExport(server.url, readToken);
        packageBytes = whole.bytes;
        return whole.status === 200;
      },
      60_000,
      100,
    );
    expect(signed, 'a checkpoint is signed').to.equal(true);
  });
  after(async () => {
    await pool?.stop();
    await server?.close();
  });

  it('a server survives bursts of aborted exports, health answering within 1 s, and still exports whole packages', async () => {
    const exited = new Promise<string>((resolve) => server.child.once('exit', (code, signal) => resolve(`exited ${code ?? signal}`)));
    const { slowestMs, probes } = await abortBursts(server.url, readToken, packageBytes);
    expect(server.child.exitCode, 'the server process is still running').to.equal(null);
    expect(slowestMs, `the slowest of ${probes} health probes (ms)`).to.be.below(1000);
    const whole = await Promise.race([wholeExport(server.url, readToken), exited]);
    expect(whole).to.have.property('status', 200);
    expect((whole as { bytes: number }).bytes).to.be.above(10_000);
    const entries = server.lines.map((line) => JSON.parse(line) as { msg?: string; level?: string });
    expect(
      entries.filter((e) => e.msg === 'unhandled error'),
      'a client that went away is no server error',
    ).to.deep.equal([]);
  });

  it('`serve --workers 2` loses no worker to aborted exports', async () => {
    pool = await startServerProcess([...server.database, '--workers', '2'], env, 2);
    // Both workers' writer threads up: until then health answers 503 "is starting", lost worker or not.
    await untilReady(pool, 2);
    // And warm, as the first test's server is from its checkpoint wait: a cold worker's first
    // exports (validators compiled on first use) held the first probe 1.2-1.5 s at load 17-23.
    for (const whole of await Promise.all([wholeExport(pool.url, readToken), wholeExport(pool.url, readToken)])) expect(whole.status).to.equal(200);
    const { slowestMs, probes } = await abortBursts(pool.url, readToken, packageBytes, burst / 2);
    const deaths = pool.lines.filter((line) => /a worker stopped/.test(line));
    expect(deaths, 'worker deaths').to.deep.equal([]);
    expect(pool.child.exitCode, 'the pool is still running').to.equal(null);
    expect((await wholeExport(pool.url, readToken)).status).to.equal(200);
    expect(slowestMs, `the slowest of ${probes} health probes (ms)`).to.be.below(1000);
  });
});
