// @database
/**
 * Slow and greedy connections (issue 30, item 6): a client holding connections with half a
 * request line must not take the server off line. Small caps configured here keep it quick.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { startTestServer, type TestServer, type TestServerOptions } from '@trailproof/server/testing';

interface Answer {
  status: number;
  body: string;
  retryAfter?: string;
  ms: number;
}

/** GET on a new connection (no pooling), from `localAddress` when given. */
function get(url: string, path: string, options: { token?: string; localAddress?: string } = {}): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url + path,
      { agent: false, localAddress: options.localAddress, headers: options.token ? { authorization: `Bearer ${options.token}` } : {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, retryAfter: res.headers['retry-after'], ms: Date.now() - started }));
      },
    );
    req.setTimeout(5_000, () => req.destroy(new Error(`no answer to ${path} in 5 s`)));
    req.on('error', reject);
    req.end();
  });
}

/** Opens a connection that sends half a request line and then nothing; resolves once connected. */
async function slowConnection(url: string, localAddress?: string): Promise<Socket & { closedAt: Promise<number>; received: () => string }> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), localAddress });
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  const closedAt = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write('GET /api/v2/flows/ac');
  return Object.assign(socket, { closedAt, received: () => received });
}

describe('hostile connections', function () {
  this.timeout(30_000);
  let server: TestServer | undefined;
  const sockets: Socket[] = [];
  const start = async (options: TestServerOptions) => (server = await startTestServer({ server: options }));
  afterEach(async () => {
    sockets.splice(0).forEach((s) => s.destroy());
    await server?.close();
    server = undefined;
  });

  it('answers 408 and closes a connection that sends half a request line, within the header time-out', async () => {
    const s = await start({ headersTimeoutMs: 1_000 });
    const slow = await slowConnection(s.url);
    sockets.push(slow);
    const opened = Date.now();
    const closed = await Promise.race([slow.closedAt, new Promise<number>((resolve) => setTimeout(() => resolve(0), 5_000))]);
    expect(closed, 'closed within 5 s').to.be.greaterThan(0);
    expect(closed - opened).to.be.within(900, 4_000);
    expect(slow.received()).to.match(/^HTTP\/1\.1 408 /);
  });

  it('answers the health check (and /livez, /readyz) within 1 s while slow connections hold every connection; anything else gets 503', async () => {
    const s = await start({ maxConnections: 20 });
    for (let i = 0; i < 20; i++) sockets.push(await slowConnection(s.url));
    const health = await get(s.url, '/api/v2/health');
    expect(health.status).to.equal(200);
    expect(health.ms).to.be.below(1_000);
    // The probes of orchestrators are served from the reserve too.
    for (const probe of ['/livez', '/readyz']) expect((await get(s.url, probe)).status, probe).to.equal(200);
    const other = await get(s.url, '/api/v2/flows/acme', { token: s.token });
    expect(other.status).to.equal(503);
    expect(other.retryAfter).to.equal('1');
    expect(JSON.parse(other.body).message).to.match(/as many connections as it may/);
    // A reserve connection that asks nothing is closed within a second.
    const idle = await slowConnection(s.url);
    sockets.push(idle);
    const opened = Date.now();
    expect((await idle.closedAt) - opened).to.be.below(2_500);
  });

  it('caps the connections of one client address; other addresses are served, and health answers', async () => {
    const s = await start({ maxConnectionsPerAddress: 5 });
    for (let i = 0; i < 5; i++) sockets.push(await slowConnection(s.url));
    const sameAddress = await get(s.url, '/api/v2/flows/acme', { token: s.token });
    expect(sameAddress.status, sameAddress.body).to.equal(503);
    const health = await get(s.url, '/api/v2/health');
    expect(health.status).to.equal(200);
    expect(health.ms).to.be.below(1_000);
    // Loopback answers on every 127.x.y.z address: another client.
    const otherAddress = await get(s.url, '/api/v2/flows/acme', { token: s.token, localAddress: '127.0.0.2' });
    expect(otherAddress.status, otherAddress.body).to.equal(200);
    // A slow connection that goes makes room for its address again.
    sockets.shift()!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await get(s.url, '/api/v2/flows/acme', { token: s.token })).status).to.equal(200);
  });
});
