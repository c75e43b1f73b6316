// @database
/**
 * A `serve --workers 2` pool whose workers die at the worst moments (issue 46, finding 7): a
 * replacement killed before it listens, and a worker killed while a connection it was handed
 * waits for it. The pool keeps serving with the worker that is up, starts another later, and
 * closes what the dead one held: the client sees its connection end, and the primary keeps no
 * descriptor for it (counted in /proc). The built command (`pnpm build`, run here).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { waitUntil } from '@trailproof/server/testing';
import { buildPackages, builtEnv, repositoryRoot } from '../support/built.ts';
import { createChildDatabase, type ChildDatabase } from '../support/child-database.ts';
import { startServerProcess, type ServerProcess } from '../support/processes.ts';
import { untilReady, whileProbingHealth } from './health-probe.ts';

interface Entry {
  msg: string;
  pid?: number;
  restartInMs?: number;
}

/** The `serve` processes `pid` started that are still there (a pool's workers, not tsx's esbuild), from /proc. */
function workersOf(pid: number): number[] {
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  return read(`/proc/${pid}/task/${pid}/children`)
    .split(' ')
    .filter(Boolean)
    .map(Number)
    .filter((child) => read(`/proc/${child}/cmdline`).split('\0').includes('serve'));
}

/** Waits for `check` with a bound generous enough for a loaded machine, named for what it waits for. */
async function eventually(what: string, check: () => boolean, ms = 60_000) {
  if (!(await waitUntil(check, ms, 20))) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/** How a request on a connection of its own ended: the status line it read, or `closed` when the connection ended without one. */
function getOnOwnConnection(url: string, path: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nhost: ${hostname}\r\nconnection: close\r\n\r\n`));
    // A reset is an ending too: the client can try again, which is all it needs.
    socket.on('error', () => {});
    socket.on('close', () => resolve(received.startsWith('HTTP/1.1') ? received.slice(0, received.indexOf('\r\n')) : 'closed'));
  });
}

describe('a worker pool whose workers die at the worst moments', function () {
  this.timeout(180_000);
  let database: ChildDatabase;
  let pool: ServerProcess | undefined;

  before(async () => {
    await buildPackages();
    database = await createChildDatabase('pool');
  });
  afterEach(async () => {
    // A worker left stopped (SIGSTOP) by a failed test would not heed the pool's SIGTERM.
    if (pool) for (const pid of workersOf(pool.child.pid!)) process.kill(pid, 'SIGKILL');
    await pool?.stop('SIGKILL');
    pool = undefined;
  });
  after(() => database.remove());

  // The built command, as operators run it: through the TypeScript loader each worker's start-up takes seconds more.
  const startPool = () =>
    startServerProcess([...database.args, '--workers', '2'], {}, 2, {
      command: [join(repositoryRoot, 'packages/server/bin/trailproof.js')],
      baseEnv: builtEnv(),
    });
  const entries = (server: ServerProcess) => server.lines.map((line) => JSON.parse(line) as Entry);
  const listeningPids = (server: ServerProcess) => entries(server).flatMap((e) => (e.msg === 'listening' && e.pid ? [e.pid] : []));
  const stopLines = (server: ServerProcess, pid: number) => entries(server).filter((e) => e.pid === pid && e.msg.startsWith('a worker stopped'));

  it('keeps serving with the worker that is up when a replacement dies before it listens, and starts another after a longer wait', async () => {
    pool = await startPool();
    // The healthy worker's writer thread up: until then its health answers 503 "is starting".
    await untilReady(pool, 2);
    const primary = pool.child.pid!;
    const [first, second] = listeningPids(pool) as [number, number];

    process.kill(first, 'SIGKILL');
    // Until the primary has seen it die, a new connection may still be handed to it (and is reset).
    await eventually('the primary to see the worker die', () => stopLines(pool!, first).length > 0);
    let replacement: number | undefined;
    await eventually('a replacement worker', () => (replacement = workersOf(primary).find((pid) => pid !== first && pid !== second)) !== undefined);
    // Start-up takes a second or more: the kill lands long before it could listen.
    process.kill(replacement!, 'SIGKILL');

    const probed = await whileProbingHealth(pool, () =>
      eventually('a second replacement listening', () => listeningPids(pool!).some((pid) => ![first, second, replacement].includes(pid))),
    );
    expect(probed.slowestMs, 'the slowest health probe while the replacement died, in ms').to.be.below(1000);
    expect(pool.child.exitCode, 'the primary is still running').to.equal(null);
    expect(workersOf(primary), 'the healthy worker is still running').to.include(second);
    expect(stopLines(pool, first).map((e) => [e.msg, e.restartInMs])).to.deep.equal([['a worker stopped: starting another', 1000]]);
    // The replacement died before it listened: the next one waits twice as long.
    expect(stopLines(pool, replacement!).map((e) => [e.msg, e.restartInMs])).to.deep.equal([['a worker stopped before it listened: starting another', 2000]]);
  });

  it('closes a connection handed to a worker that died before taking it, and keeps no descriptor for it', async () => {
    pool = await startPool();
    const primary = pool.child.pid!;
    const descriptors = () => readdirSync(`/proc/${primary}/fd`).length;
    const before = descriptors();
    const [stopped] = listeningPids(pool) as [number, number];

    // A stopped worker takes no connection: the pool hands it one and waits for its answer, and
    // gives the others to the worker that runs. Four connections: three answered, one waiting.
    process.kill(stopped, 'SIGSTOP');
    const ends: string[] = [];
    const requests = Array.from({ length: 4 }, () => getOnOwnConnection(pool!.url, '/livez').then((end) => void ends.push(end)));
    await eventually('three answers from the running worker', () => ends.length >= 3);
    expect(ends).to.deep.equal(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);

    process.kill(stopped, 'SIGKILL');
    await eventually('the connection handed to the dead worker to end', () => ends.length === 4, 30_000);
    await Promise.all(requests);
    expect(ends[3]).to.equal('closed');

    await eventually('a replacement listening', () => listeningPids(pool!).length === 3);
    expect(descriptors(), "the primary's open descriptors after the death and the replacement").to.equal(before);
  });
});
