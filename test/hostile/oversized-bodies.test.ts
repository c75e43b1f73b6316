// @database
/**
 * A body over its route's limit (issue 46, finding 9): a 14 MB multipart body to an attestation
 * route that takes at most about 11 MB. The server answers 413 before reading it, and used to
 * close the connection while the client still sent: Node's `fetch` then failed with EPIPE in
 * about a third of tries instead of reading the answer. Against a server process, on SQLite and
 * PostgreSQL (TRAILPROOF_TEST_DATABASE).
 */
import { connect } from 'node:net';
import { expect } from 'chai';
import { startChildServer, type ChildServer } from './child-server.ts';
import { whileProbingHealth } from './health-probe.ts';
import { generic, uploadForm } from './upload-requests.ts';

const tries = 20;

describe('hostile uploads: a body over the route limit, against a server process', function () {
  this.timeout(180_000);
  let server: ChildServer;
  before(async () => (server = await startChildServer()));
  after(() => server?.close());

  it('fetch reads the 413 of a 14 MB body every time (no EPIPE), while health answers within 1 s', async () => {
    const { result: outcomes, slowestMs } = await whileProbingHealth(server, async () => {
      const seen: Array<number | string> = [];
      for (let attempt = 0; attempt < tries; attempt++) {
        const answer = await fetch(server.url + generic, {
          method: 'POST',
          headers: { authorization: `Bearer ${server.token}` },
          body: uploadForm(14 * 1024 * 1024),
        }).catch((error: Error) => `${error.message}: ${String((error.cause as Error | undefined)?.message)}`);
        if (typeof answer === 'string') {
          seen.push(answer);
          continue;
        }
        const body = (await answer.json()) as { message?: string };
        seen.push(answer.status);
        expect(body.message).to.match(/Body too large/);
      }
      return seen;
    });
    expect(outcomes).to.deep.equal(Array.from({ length: tries }, () => 413));
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
  });

  it('stops reading a refused body after its bound: a client that never stops sending is cut off', async () => {
    const { hostname, port } = new URL(server.url);
    // Half-open: it goes on sending after the server has ended its side, as a client busy sending does.
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST ${generic} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000000000000\r\n\r\n`,
    );
    let answer = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (answer += chunk));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // Sends as fast as the server reads, until the server closes the connection.
    const chunk = Buffer.alloc(1024 * 1024, 120);
    let sent = 0;
    while (!socket.destroyed) {
      if (!socket.write(chunk)) await drainedOrClosed(socket);
      sent += chunk.length;
    }
    await closed;
    expect(answer).to.match(/^HTTP\/1\.1 413 /);
    // It lingered: far more than the kernels' buffers hold was read before it closed, and no more than its bound (64 MiB) and those buffers.
    expect(sent, 'bytes sent before the server closed')
      .to.be.above(48 * 1024 * 1024)
      .and.below(200 * 1024 * 1024);
  });
});

/** Until `socket` can take more, or is closed. */
function drainedOrClosed(socket: import('node:net').Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done).off('close', done);
      resolve();
    };
    socket.on('drain', done).on('close', done);
  });
}
