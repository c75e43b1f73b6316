// @database
/**
 * `startServer` binds its port before the app's modules load and the store opens (`serve` passes
 * the store's opening): `/livez` answers at once, every other request waits for the app and the
 * store and is then answered as usual; a store that fails to open fails the start and frees the port.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { silentLogger, startServer, type Store } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';

/** A store's opening that resolves (or fails) when the test says. */
function pendingStore() {
  let open!: (store: Store) => void;
  let fail!: (error: Error) => void;
  const store = new Promise<Store>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { store, open, fail };
}

/** Status and body of a GET of `path`. */
function get(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url + path, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

/** A port free on loopback now (the server binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}

/** The first answer to /livez, asked again each time the connection is refused (the port not bound yet). */
async function firstLive(url: string) {
  for (;;) {
    const live = await get(url, '/livez').catch(() => null);
    if (live) return live;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** `startServer` on a free port with the store's opening `store`; its URL is known before it resolves. */
async function starting(store: Promise<Store>) {
  const port = await freePort();
  const running = startServer({ store, port, host: '127.0.0.1', logger: silentLogger, console: false, metrics: 'off' });
  return { running, url: `http://127.0.0.1:${port}` };
}

describe('startServer listens before the app and the store are ready', function () {
  this.timeout(60_000);

  it('answers /livez at once; the health check waits for the store, then answers', async () => {
    const pending = pendingStore();
    const server = await starting(pending.store);
    const url = server.url;
    // Nothing has opened the store: the probe is answered by the process alone.
    expect(await firstLive(url)).to.deep.equal({ status: 200, body: '{"status":"ok"}' });
    let healthAnswered = false;
    const health = get(url, '/api/v2/health').then((answer) => ((healthAnswered = true), answer));
    // The probe again, with the health check waiting: it still answers, and the health check has not.
    expect((await get(url, '/livez')).status).to.equal(200);
    expect(healthAnswered).to.equal(false);

    const opened = await openTestStore();
    pending.open(opened.store);
    const running = await server.running;
    try {
      expect(await health).to.deep.equal({ status: 200, body: '{"status":"ok"}' });
      expect((await get(url, '/api/v2/no-such-route')).status).to.equal(404);
    } finally {
      await running.close();
      await opened.cleanup();
    }
  });

  it('a store that fails to open fails the start and frees the port', async () => {
    const pending = pendingStore();
    const { running, url } = await starting(pending.store);
    expect((await firstLive(url)).status).to.equal(200);
    const waiting = get(url, '/api/v2/health').catch((error: NodeJS.ErrnoException) => error.code);
    // A probe answered after it: the connection of the request that waits was accepted before it.
    expect((await get(url, '/livez')).status).to.equal(200);
    pending.fail(new Error('the database file is not a database'));
    const failed = await running.then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failed).to.equal('the database file is not a database');
    // The request that waited is not left hanging, and nothing listens any more.
    expect(await waiting).to.equal('ECONNRESET');
    expect(await get(url, '/livez').catch((error: NodeJS.ErrnoException) => error.code)).to.equal('ECONNREFUSED');
  });
});
