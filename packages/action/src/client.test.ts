import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { ApiRequestError, createClient } from '@trailproof/action';

/** A real server on loopback that answers from a script, one step per request. */
async function scripted(steps: Array<(req: IncomingMessage, res: ServerResponse) => void>) {
  const seen: string[] = [];
  /** When each request arrived (ms, monotonic). */
  const at: number[] = [];
  const server: Server = createServer((req, res) => {
    at.push(performance.now());
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    const step = steps.shift() ?? ((_q, r) => r.writeHead(500).end());
    req.resume();
    req.on('end', () => step(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** Milliseconds between consecutive requests. */
  const gaps = () => at.slice(1).map((t, i) => t - at[i]!);
  return { url, seen, gaps, close: () => new Promise((r) => server.close(r)) };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

describe('action HTTP client', () => {
  it('retries 503 and succeeds, sending the bearer token each time', async () => {
    const server = await scripted([json(503, { message: 'busy' }), json(503, { message: 'busy' }), json(201, 'created')]);
    const retries: string[] = [];
    const client = createClient({ serverUrl: server.url, apiToken: 'tp_secret', backoffMs: 10, onRetry: (m) => retries.push(m) });
    const res = await client.request('PUT', '/trails/acme/app', { name: 't' });
    await server.close();
    expect(res).to.deep.equal({ status: 201, body: 'created' });
    expect(server.seen).to.have.length(3);
    expect(server.seen.every((s) => s === 'PUT /api/v2/trails/acme/app Bearer tp_secret')).to.equal(true);
    expect(retries).to.have.length(2);
  });

  /** Each case: the answers before a final 200, the client's options, and the [min, max] wait before each retry (ms). */
  const waits: Array<[string, () => Array<ReturnType<typeof json>>, { backoffMs: number; maxDelayMs?: number }, Array<[number, number]>]> = [
    [
      'backs off exponentially (±25% jitter) on 5xx and 429 without a Retry-After header',
      () => [json(503, { message: 'busy' }), json(429, { message: 'slow down' }), json(502, 'bad gateway')],
      { backoffMs: 100 },
      [
        [75, 125],
        [150, 250],
        [300, 500],
      ],
    ],
    // 120 ms, then 240 and 480 ms (±25%) capped at 200 ms.
    [
      'backs off when Retry-After is unreadable, and caps the backoff at maxDelayMs',
      () => [json(503, {}, { 'retry-after': 'soon' }), json(503, {}, { 'retry-after': '1.5' }), json(503, {})],
      { backoffMs: 120, maxDelayMs: 200 },
      [
        [90, 150],
        [180, 200],
        [200, 200],
      ],
    ],
    // HTTP dates have whole seconds: two seconds ahead is more than one second away.
    [
      'honours Retry-After as an HTTP date, and caps a long Retry-After at maxDelayMs',
      () => [json(503, {}, { 'retry-after': new Date(Date.now() + 2000).toUTCString() }), json(429, {}, { 'retry-after': '3600' })],
      { backoffMs: 1, maxDelayMs: 1500 },
      [
        [1000, 1500],
        [1500, 1500],
      ],
    ],
  ];
  for (const [title, answers, options, expected] of waits) {
    it(title, async () => {
      const server = await scripted([...answers(), json(200, 'ok')]);
      const planned: number[] = [];
      const onRetry = (message: string) => planned.push(Number(/ in (\d+) ms$/.exec(message)?.[1]));
      await createClient({ serverUrl: server.url, apiToken: 't', ...options, onRetry }).request('GET', '/x');
      await server.close();
      const gaps = server.gaps();
      expect(gaps).to.have.length(expected.length);
      // The delay the client chose (rounded in its message) is within the bounds, and it really waited that long:
      // timers may fire a little early, and how much later a loaded machine answers is not the client's to bound.
      expected.forEach(([min, max], i) => {
        expect(planned[i], `delay chosen before retry ${i + 1}`).to.be.within(min - 1, max + 1);
        expect(gaps[i], `wait before retry ${i + 1}`).to.be.at.least(Math.min(min, planned[i]!) - 2);
      });
    });
  }

  it('honours Retry-After on 429', async () => {
    const server = await scripted([json(429, { message: 'slow down' }, { 'retry-after': '1' }), json(200, 'ok')]);
    const client = createClient({ serverUrl: server.url, apiToken: 't', backoffMs: 1 });
    const started = Date.now();
    await client.request('GET', '/x');
    await server.close();
    expect(Date.now() - started).to.be.at.least(900);
    expect(server.seen).to.have.length(2);
  });

  it('never retries another 4xx, and surfaces the server message and field errors', async () => {
    const server = await scripted([json(400, { message: 'Input payload validation failed', errors: { 'junit_results.0.total': 'must be >= 0' } })]);
    const client = createClient({ serverUrl: server.url, apiToken: 't', backoffMs: 1 });
    const error = await client.request('POST', '/attestations/acme/app/trail/t/junit', new FormData()).catch((e: unknown) => e);
    await server.close();
    expect(error).to.be.instanceOf(ApiRequestError);
    expect((error as ApiRequestError).status).to.equal(400);
    expect((error as Error).message)
      .to.contain('Input payload validation failed')
      .and.to.contain('junit_results.0.total: must be >= 0');
    expect(server.seen).to.have.length(1);
  });

  it("names the server's request id in the error, when it looks like one", async () => {
    const server = await scripted([
      json(404, { message: 'No such trail' }, { 'x-request-id': 'lb-7f3a.91:2' }),
      json(404, { message: 'No such trail' }, { 'x-request-id': '::error::injected' + ' x'.repeat(3) }),
      json(404, { message: 'No such trail' }),
    ]);
    const client = createClient({ serverUrl: server.url, apiToken: 't', backoffMs: 1 });
    const failures: ApiRequestError[] = [];
    for (let i = 0; i < 3; i++)
      failures.push(
        await client.request('GET', '/trails/acme/app/t').then(
          () => {
            throw new Error('answered 2xx');
          },
          (e: unknown) => e as ApiRequestError,
        ),
      );
    await server.close();
    expect(failures.map((e) => e.requestId)).to.deep.equal(['lb-7f3a.91:2', undefined, undefined]);
    expect(failures.map((e) => e.message)).to.deep.equal([
      'GET /trails/acme/app/t answered 404: No such trail [request lb-7f3a.91:2]',
      'GET /trails/acme/app/t answered 404: No such trail',
      'GET /trails/acme/app/t answered 404: No such trail',
    ]);
  });

  it('retries a connection reset, then gives up after its attempts with the cause', async () => {
    const server = await scripted([(req) => req.socket.destroy(), (req) => req.socket.destroy(), (req) => req.socket.destroy()]);
    const client = createClient({ serverUrl: server.url, apiToken: 't', backoffMs: 5, attempts: 3 });
    const error = await client.request('GET', '/x').catch((e: unknown) => e);
    await server.close();
    expect(server.seen).to.have.length(3);
    expect((error as Error).message).to.match(/failed after 3 attempts/);
  });

  it('a refused token answered before the upload was read (the connection then closed): no retry, the status and the server message', async () => {
    // As a server that checks the token first: 401 at once, then the socket closed while the client still sends.
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      res.writeHead(401, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ message: 'token expired' }));
      // Closed at once: the answer may or may not reach the client before its write fails.
      res.on('finish', () => req.socket.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const retries: string[] = [];
    const client = createClient({
      serverUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      apiToken: 'expired',
      backoffMs: 1,
      onRetry: (m) => retries.push(m),
    });
    const form = new FormData();
    form.append('attachment_file', new Blob([Buffer.alloc(8 * 1024 * 1024, 'x')]), 'junit.xml');
    const error = await client.request('POST', '/attestations/acme/app/trail/t/junit', form).catch((e: unknown) => e);
    await new Promise((r) => server.close(r));
    expect((error as Error).message).to.equal('POST /attestations/acme/app/trail/t/junit answered 401: token expired');
    expect((error as ApiRequestError).status).to.equal(401);
    // The upload, and where its answer was lost, the same request without the body.
    expect(requests).to.be.within(1, 2);
    expect(retries).to.deep.equal([]);
  });

  it('never retries 403, nor 408 and other 4xx', async () => {
    const server = await scripted([json(403, { message: 'Authentication required' }), json(408, { message: 'timeout' })]);
    const client = createClient({ serverUrl: server.url, apiToken: 't', backoffMs: 1 });
    const messages = [];
    for (let i = 0; i < 2; i++) messages.push(await client.request('GET', '/x').catch((e: Error) => e.message));
    await server.close();
    expect(messages).to.deep.equal(['GET /x answered 403: Authentication required', 'GET /x answered 408: timeout']);
    expect(server.seen).to.have.length(2);
  });

  it('an upload cut off without an answer says the server closed the connection, and what usually causes it', async () => {
    // The server reads the headers, then drops the connection under the 8 MB body, answering nothing.
    const server = createServer((req) => setTimeout(() => req.socket.resetAndDestroy(), 20));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createClient({ serverUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiToken: 't', backoffMs: 1, attempts: 2 });
    const form = new FormData();
    form.append('attachment_file', new Blob([Buffer.alloc(8 * 1024 * 1024, 'x')]), 'junit.xml');
    const error = await client.request('POST', '/attestations/acme/app/trail/t/junit', form).catch((e: unknown) => e);
    await new Promise((r) => server.close(r));
    expect((error as Error).message).to.match(
      /failed after 2 attempts: (EPIPE|ECONNRESET) \(the server closed the connection while the request was being sent.*expired or wrong api-token/,
    );
  });

  it('times out a server that never answers', async () => {
    const server = await scripted([() => {}, () => {}]);
    const client = createClient({ serverUrl: server.url, apiToken: 't', timeoutMs: 200, attempts: 2, backoffMs: 1 });
    const error = await client.request('GET', '/x').catch((e: unknown) => e);
    expect((error as Error).message).to.match(/failed after 2 attempts/);
    server.close();
  });
});
