// @database
/** `trailproof serve`'s connections: how long an idle keep-alive one stays open, and TRAILPROOF_MAX_CONNECTIONS. */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { commandFixture, run } from '../../../../test/support/cli-command.ts';

/**
 * One keep-alive connection, by hand: `ask` sends a GET and resolves with the status line and
 * headers of its answer; `closed` resolves with the time the server closed the connection.
 */
function keepAliveConnection(base: string, token: string) {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  let received = '';
  let isClosed = false;
  let check: (() => void) | undefined;
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk;
    check?.();
  });
  socket.on('error', () => {}); // a write into a connection the server closed: `ask` rejects instead
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      check?.();
      resolve(Date.now());
    }),
  );
  const ask = (path: string) =>
    new Promise<{ status: string; headers: string[]; answeredAt: number }>((resolve, reject) => {
      received = '';
      check = () => {
        const [head, body] = received.split('\r\n\r\n');
        const length = /^content-length: (\d+)$/im.exec(head ?? '');
        if (body !== undefined && length && Buffer.byteLength(body) >= Number(length[1])) {
          const [status, ...headers] = head!.split('\r\n');
          resolve({ status: status!, headers: headers.map((h) => h.toLowerCase()), answeredAt: Date.now() });
        } else if (isClosed) reject(new Error(`the server closed the connection before answering ${path}`));
      };
      if (isClosed) return check();
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    });
  return { ask, closed, close: () => socket.destroy() };
}

describe('the trailproof command', function () {
  this.timeout(60_000);
  let dir = '';
  let db = '';
  const start = commandFixture((place) => ({ dir, db } = place));

  it('keeps an idle keep-alive connection open 65 s, longer than the proxies in front; TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS sets it', async function () {
    this.timeout(90_000);
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    const s = await start(['--database', db, '--port', '0']);
    const connection = keepAliveConnection(s.url, token);
    try {
      const first = await connection.ask('/api/v2/environments/acme');
      expect(first.status).to.equal('HTTP/1.1 200 OK');
      expect(first.headers).to.include.members(['connection: keep-alive', 'keep-alive: timeout=65']);
      // Idle past the 5 s that closed such connections before (and a client that had blocked its
      // event loop as long then wrote into a closed connection: EPIPE).
      await sleep(6_000);
      expect((await connection.ask('/api/v2/environments/acme')).status, 'the same connection, 6 s idle').to.equal('HTTP/1.1 200 OK');
    } finally {
      connection.close();
    }

    const short = await start(['--database', db, '--port', '0'], { TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS: '1000' });
    const shortLived = keepAliveConnection(short.url, token);
    const answer = await shortLived.ask('/api/v2/environments/acme');
    expect(answer.headers).to.include('keep-alive: timeout=1');
    expect((await shortLived.closed) - answer.answeredAt).to.be.within(900, 3_000);

    for (const value of ['500', 'soon']) {
      const result = await run(['serve', '--database', db, '--port', '0'], { TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS: value });
      expect(result.status, value).to.equal(2);
      expect(result.stderr).to.contain(`TRAILPROOF_KEEP_ALIVE_TIMEOUT_MS must be a whole number from 1000 to 3600000, not '${value}'`);
    }
  });

  it('closes connections beyond TRAILPROOF_MAX_CONNECTIONS as they arrive, idle ones counted, and logs it; a closed one makes room', async () => {
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    const s = await start(['--database', db, '--port', '0'], { TRAILPROOF_MAX_CONNECTIONS: '2' });
    const path = '/api/v2/environments/acme';
    const first = keepAliveConnection(s.url, token);
    expect((await first.ask(path)).status).to.equal('HTTP/1.1 200 OK');
    const second = keepAliveConnection(s.url, token);
    expect((await second.ask(path)).status).to.equal('HTTP/1.1 200 OK');
    // Both idle now, and still open: a third is closed without an answer.
    const third = keepAliveConnection(s.url, token);
    const openedAt = Date.now();
    try {
      expect((await third.closed) - openedAt, 'closed as it arrives').to.be.below(5_000);
      let refusal: unknown;
      await third.ask(path).catch((error: unknown) => (refusal = error));
      expect(String(refusal)).to.contain('the server closed the connection before answering');
      const refusals = () => s.lines.filter((l) => l.msg === 'connections refused').map(({ limit, refused }) => ({ limit, refused }));
      for (let waited = 0; waited < 2_000 && !refusals().length; waited += 50) await sleep(50); // the log line arrives through a pipe
      expect(refusals()).to.deep.equal([{ limit: 2, refused: 1 }]);

      first.close();
      await first.closed;
      let answered = '';
      for (let attempt = 0; attempt < 20 && !answered; attempt++) {
        // The server learns of the close a moment after this process made it.
        await sleep(100);
        const next = keepAliveConnection(s.url, token);
        answered = await next.ask(path).then(
          (a) => a.status,
          () => '',
        );
        next.close();
      }
      expect(answered, 'a connection once the first closed').to.equal('HTTP/1.1 200 OK');
    } finally {
      for (const connection of [first, second, third]) connection.close();
    }
    for (const value of ['0', 'many']) {
      const result = await run(['serve', '--database', db, '--port', '0'], { TRAILPROOF_MAX_CONNECTIONS: value });
      expect(result.status, value).to.equal(2);
      expect(result.stderr).to.contain(`TRAILPROOF_MAX_CONNECTIONS must be a whole number from 1 to 1000000, not '${value}'`);
    }
  });
});
