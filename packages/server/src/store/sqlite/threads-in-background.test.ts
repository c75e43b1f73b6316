// @database
/**
 * A SQLite store whose threads start in the background (`threadsInBackground`, as `serve` opens
 * it): it opens without waiting for them, its health check fails as `starting` until the writer
 * thread has opened the database, and the probes answer 503 meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createApp, openSqliteStore, silentLogger, type Store } from '@trailproof/server';
import { StoreError } from '@trailproof/server/plugin-kit';
import { waitUntil } from '@trailproof/server/testing';

describe('SQLite threads started in the background', function () {
  this.timeout(60_000);
  let dir = '';
  let store: Store | undefined;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'trailproof-background-'))));
  afterEach(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens before its writer thread has: the health check fails as starting, then passes once it has', async () => {
    store = await openSqliteStore(join(dir, 'test.db'), { threadsInBackground: true });
    // No message from a thread can have arrived yet: the open resolved without another turn of the event loop.
    const early = await store.checkDatabase().then(
      () => null,
      (error: unknown) => error as { kind?: string; message?: string },
    );
    expect(early, 'the first check').to.include({ kind: 'starting', message: 'the SQLite writer thread is starting' });
    const ready = await waitUntil(
      () =>
        store!.checkDatabase().then(
          () => true,
          () => false,
        ),
      30_000,
    );
    expect(ready, 'the check passes once the writer thread has opened the database').to.equal(true);
  });

  it('answers /readyz 503 "is starting" with Retry-After meanwhile, and /livez 200', async () => {
    store = await openSqliteStore(join(dir, 'test.db'), { threadsInBackground: true });
    // The answers while the store says it is starting, whatever the thread does meanwhile.
    const starting: Store = { ...store, checkDatabase: () => Promise.reject(new StoreError('starting', 'the SQLite writer thread is starting')) };
    const server: Server = createServer(createApp({ store: starting, logger: silentLogger, console: false }).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).to.equal(503);
      expect(ready.headers.get('retry-after')).to.equal('2');
      expect(await ready.json()).to.deep.equal({ message: 'Not ready: the database is unavailable', errors: { database: 'is starting' } });
      expect((await fetch(`${url}/livez`)).status).to.equal(200);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
