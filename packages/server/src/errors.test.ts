// @database
import { connect } from 'node:net';
import { expect } from 'chai';
import { attestJunit, defineOperation, listEnvironments } from '@trailproof/schema';
import { defaultPlugins, definePlugin, startServer, type Logger } from '@trailproof/server';
import { openTestStore, startTestServer, type TestResponse, type TestServer } from '@trailproof/server/testing';

const secret = 'password=hunter2 at /srv/trailproof/internal.ts';

/** A third-party operation whose handler fails the way a bug does. */
const explode = defineOperation({
  id: 'explode',
  summary: 'Fails',
  tags: ['Test'],
  method: 'GET',
  path: '/explode/{org}',
  access: 'read',
  params: listEnvironments.params,
  query: listEnvironments.query,
  body: undefined,
  responses: { 200: { description: 'Never', schema: attestJunit.responses[201].schema } },
});
const explodePlugin = definePlugin({
  operation: explode,
  async handler() {
    throw new Error(`connection to ${secret} refused`);
  },
});
const throwsString = definePlugin({
  operation: { ...explode, id: 'throwsString', path: '/throws-string/{org}' },
  async handler() {
    throw secret as unknown as Error; // not even an Error
  },
});

/** Fails as SQLite does with the error code named in the path (the `org` parameter). */
const sqliteFailure = definePlugin({
  operation: { ...explode, id: 'sqliteFailure', path: '/sqlite-failure/{org}', access: 'none' },
  async handler({ params }) {
    throw Object.assign(new Error(`SQLite failed: ${params.org}`), { code: params.org });
  },
});

/** Every error answer: JSON, `{message}` and, only where fields are at fault, `errors` of strings. */
function expectErrorShape(res: TestResponse, status: number, fields?: string[]) {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  expect(res.body).to.be.an('object');
  expect(res.body.message).to.be.a('string').and.not.equal('');
  if (fields) {
    expect(Object.keys(res.body)).to.have.members(['message', 'errors']);
    expect(res.body.errors).to.have.keys(fields);
    for (const value of Object.values(res.body.errors)) expect(value).to.be.a('string');
  } else {
    expect(Object.keys(res.body)).to.deep.equal(['message']);
  }
}

describe('error answers', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer({ plugins: [...defaultPlugins, explodePlugin, throwsString, sqliteFailure] })));
  after(() => server.close());

  it('404 for unknown routes, as JSON, with or without a token', async () => {
    for (const [path, token] of [
      ['/api/v2/no-such-thing', undefined],
      ['/no-such-page', null],
      ['/api/v2/environments/acme/production/extra/segments', undefined],
      ['/api/v3/environments/acme', null],
    ] as const) {
      const res = await server.request('GET', path, { token });
      expectErrorShape(res, 404);
      expect(res.body.message, path).to.equal(`No such route: GET ${path}`);
    }
  });

  it('405 for a known path with another method, as JSON with Allow', async () => {
    const res = await server.request('DELETE', '/api/v2/environments/acme');
    expectErrorShape(res, 405);
    expect(res.body.message).to.equal('Method not allowed');
    expect(res.headers.get('allow')!.split(/,\s*/).sort()).to.deep.equal(['GET', 'HEAD', 'PUT']);
    const post = await server.request('POST', '/api/v2/approvals/acme/payments/1', { json: {} });
    expectErrorShape(post, 405);
    expect(post.headers.get('allow')).to.contain('PUT').and.to.contain('GET');
    const unknownMethod = await server.request('PURGE', '/api/v2/environments/acme');
    expectErrorShape(unknownMethod, 501);
    expect(unknownMethod.headers.get('allow')).to.contain('PUT');
  });

  it('413 for a file over 10MB and for a JSON body over its limit', async () => {
    expect((await server.request('PUT', '/api/v2/trails/acme/payments', { form: { data_json: JSON.stringify({ name: 'build-1' }) } })).status).to.equal(201);
    const file = await server.request('POST', '/api/v2/attestations/acme/payments/trail/build-1/junit', {
      form: { data_json: JSON.stringify({ attestation_name: 'unit', junit_results: [] }), attachment_file: { content: new Uint8Array(10 * 1024 * 1024 + 1) } },
    });
    expectErrorShape(file, 413, ['attachment_file']);
    const json = await server.request('PUT', '/api/v2/environments/acme', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'big', type: 'server', description: 'x'.repeat(1024 * 1024) }),
    });
    expectErrorShape(json, 413);
  });

  it('413 for too many fields or files in a multipart body, storing nothing', async () => {
    const path = '/api/v2/trails/acme/payments';
    // Five plain fields: more than the four a multipart operation takes.
    const fiveFields = new FormData();
    fiveFields.append('data_json', JSON.stringify({ name: 'build-parts' }));
    for (let i = 0; i < 4; i++) fiveFields.append(`field${i}`, 'x');
    const fields = await server.request('PUT', path, { body: fiveFields });
    expectErrorShape(fields, 413);
    expect(fields.body.message).to.match(/Too many fields/);
    // Three files where begin trail takes two (data_json as a file, and template_file).
    const threeFiles = new FormData();
    threeFiles.append('data_json', new Blob([JSON.stringify({ name: 'build-parts' })]), 'data.json');
    for (let i = 0; i < 2; i++) threeFiles.append('template_file', new Blob(['version: 1\n']), 'template.yml');
    const files = await server.request('PUT', path, { body: threeFiles });
    expectErrorShape(files, 413);
    expect(files.body.message).to.match(/Too many files/);
    expect((await server.request('GET', `${path}/build-parts`)).status).to.equal(404);
  });

  it('415 for a body of the wrong content type', async () => {
    const json = await server.request('PUT', '/api/v2/trails/acme/payments', { json: { name: 'build-1' } });
    expectErrorShape(json, 415);
    const text = await server.request('PUT', '/api/v2/environments/acme', { headers: { 'content-type': 'text/plain' }, body: '{"name":"x","type":"server"}' });
    expectErrorShape(text, 415);
    expect(text.body.message).to.contain('application/json');
  });

  it('400 for invalid input, naming each field', async () => {
    expectErrorShape(await server.request('GET', '/api/v2/environments/acme?per_page=0&sort=size'), 400, ['query.per_page', 'query.sort']);
    expectErrorShape(await server.request('GET', '/api/v2/approvals/acme/payments/0'), 400, ['path.approval_number']);
    expectErrorShape(await server.request('PUT', '/api/v2/trails/acme/payments', { form: { data_json: '{"name":' } }), 400, ['data_json']);
    expectErrorShape(
      await server.request('PUT', '/api/v2/trails/acme/payments', { form: { data_json: JSON.stringify({ name: 'a b', colour: 'red' }) } }),
      400,
      ['name', 'colour'],
    );
    expectErrorShape(
      await server.request('PUT', '/api/v2/environments/acme', { headers: { 'content-type': 'application/json' }, body: '{"name": "x",' }),
      400,
      ['body'],
    );
    expectErrorShape(await server.request('GET', '/api/v2/deployments/acme?start_ts=10&end_ts=5'), 400, ['query.start_ts']);
    const malformed = await server.request('PUT', '/api/v2/trails/acme/payments', {
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n{}',
    });
    expectErrorShape(malformed, 400);
  });

  it('401, 403 and 404 for missing tokens, other organisations and unknown resources', async () => {
    const none = await server.request('GET', '/api/v2/environments/acme', { token: null });
    expectErrorShape(none, 401);
    expectErrorShape(await server.request('GET', '/api/v2/environments/acme', { token: server.otherToken }), 403);
    expectErrorShape(await server.request('GET', '/api/v2/approvals/acme/no-such-flow'), 404);
    expectErrorShape(await server.request('GET', '/api/v2/environments/initech', { token: server.otherToken }), 403);
  });

  it('431 and 400 from the HTTP parser are JSON too', async () => {
    const raw = async (text: string) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
      socket.end(text);
      let answer = '';
      for await (const chunk of socket) answer += chunk;
      return answer;
    };
    const big = await raw(`GET /api/v2/environments/acme HTTP/1.1\r\nHost: x\r\nX-Padding: ${'x'.repeat(20 * 1024)}\r\n\r\n`);
    expect(big).to.match(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(big.split('\r\n\r\n')[1]!).message).to.match(/headers too large/);
    const malformed = await raw('GET /api/v2/environments/acme HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    expect(malformed).to.match(/^HTTP\/1\.1 400 /);
    expect(malformed).to.match(/content-type: application\/json/i);
    expect(JSON.parse(malformed.split('\r\n\r\n')[1]!)).to.deep.equal({ message: 'Malformed HTTP request' });
  });

  it('500 with nothing internal when a handler throws', async () => {
    for (const path of ['/api/v2/explode/acme', '/api/v2/throws-string/acme']) {
      const res = await server.request('GET', path);
      expectErrorShape(res, 500);
      // Nothing but the request's id, which names the cause's log line.
      const id = res.headers.get('x-request-id');
      expect(id).to.match(/^[0-9a-f-]{36}$/);
      expect(res.body).to.deep.equal({ message: `Internal server error (request ${id})` });
      const text = new TextDecoder().decode(res.bytes);
      for (const leak of ['hunter2', 'internal.ts', 'connection', 'at ', 'Error']) expect(text, path).not.to.contain(leak);
    }
    // The server keeps serving afterwards.
    expect((await server.request('GET', '/api/v2/environments/acme')).status).to.equal(200);
  });

  it("503 when the database's storage fails (SQLite I/O errors, files it cannot open, lock or find where they were), 500 for its other errors", async () => {
    const storage = 'The database is unavailable: reading or writing its file failed, and nothing of this request was stored';
    const answers: Array<[string, number, string, string | null]> = [
      ['SQLITE_IOERR', 503, storage, null],
      ['SQLITE_IOERR_WRITE', 503, storage, null],
      ['SQLITE_IOERR_FSTAT', 503, storage, null],
      ['SQLITE_CANTOPEN', 503, storage, null],
      ['SQLITE_READONLY_CANTLOCK', 503, storage, null],
      [
        'SQLITE_READONLY_DBMOVED',
        503,
        'The database is unavailable: its file was moved or deleted while the server ran, and nothing of this request was stored',
        null,
      ],
      ['SQLITE_BUSY', 503, 'The database is unavailable; try again shortly', '2'],
      ['SQLITE_FULL', 507, 'Insufficient storage: the database is full, and nothing of this request was stored', null],
      ['SQLITE_READONLY', 500, 'Internal server error', null],
      ['SQLITE_CORRUPT', 500, 'Internal server error', null],
      ['SQLITE_CONSTRAINT_UNIQUE', 500, 'Internal server error', null],
    ];
    for (const [code, status, message, retryAfter] of answers) {
      const res = await server.request('GET', `/api/v2/sqlite-failure/${code}`, { token: null });
      expectErrorShape(res, status);
      expect(res.body.message, code).to.equal(`${message} (request ${res.headers.get('x-request-id')})`);
      expect(res.headers.get('retry-after'), code).to.equal(retryAfter);
    }
  });

  /** A server with the exploding plugin whose log lines are kept in `entries`. */
  async function startLoggedServer() {
    const entries: Array<Record<string, unknown>> = [];
    const logger: Logger = { info: (e) => entries.push(e), error: (e) => entries.push({ level: 'error', ...e }) };
    const { store, cleanup } = await openTestStore();
    const { createToken } = await import('@trailproof/server');
    const { token } = await createToken(store, { org: 'acme' });
    const running = await startServer({ store, logger, port: 0, host: '127.0.0.1', plugins: [...defaultPlugins, explodePlugin] });
    return { entries, token, running, cleanup };
  }

  it('logs the cause of a 500 for the operator, and never the token', async () => {
    const { entries, token, running, cleanup } = await startLoggedServer();
    try {
      const res = await fetch(`${running.url}/api/v2/explode/acme?name=x`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).to.equal(500);
      expect(await res.json()).to.deep.equal({ message: `Internal server error (request ${res.headers.get('x-request-id')})` });
    } finally {
      await running.close(1000);
      await cleanup();
    }
    const error = entries.find((e) => e.level === 'error')!;
    expect(error).to.include({ msg: 'internal error', method: 'GET', path: '/api/v2/explode/acme' });
    expect(String(error.error)).to.contain('hunter2');
    expect(entries.find((e) => e.msg === 'request')).to.include({ method: 'GET', path: '/api/v2/explode/acme', status: 500 });
    expect(JSON.stringify(entries)).not.to.contain(token.slice(20));
  });

  it('names each request with an id, answered in X-Request-Id and in every log line of the request', async () => {
    const { entries, token, running, cleanup } = await startLoggedServer();
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(running.url + path, { headers: { authorization: `Bearer ${token}`, ...headers } });
    try {
      // One of our own for each request that comes without one.
      const failed = await get('/api/v2/explode/acme');
      expect(failed.status).to.equal(500);
      const id = failed.headers.get('x-request-id')!;
      expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const other = (await get('/api/v2/environments/acme')).headers.get('x-request-id');
      expect(other)
        .to.match(/^[0-9a-f-]{36}$/)
        .and.not.to.equal(id);
      // The cause of the 500 and the request line both carry it.
      expect(entries.filter((e) => e.request_id === id).map((e) => e.msg)).to.deep.equal(['internal error', 'request']);
      // A proxy's id is kept when it is fit for the log; anything else is replaced.
      expect((await get('/api/v2/environments/acme', { 'x-request-id': 'lb-7f3a.91:2' })).headers.get('x-request-id')).to.equal('lb-7f3a.91:2');
      for (const unfit of ['has space', 'x'.repeat(65), 'quote"d', '']) {
        const answered = (await get('/api/v2/environments/acme', { 'x-request-id': unfit })).headers.get('x-request-id');
        expect(answered, unfit).to.match(/^[0-9a-f-]{36}$/);
      }
      // Errors the client caused have it too, and so does the health check.
      const refused = await fetch(`${running.url}/api/v2/environments/acme`);
      expect(refused.status).to.equal(401);
      expect(refused.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
      expect((await fetch(`${running.url}/api/v2/health`)).headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    } finally {
      await running.close(1000);
      await cleanup();
    }
    expect(entries.filter((e) => e.msg === 'request').every((e) => typeof e.request_id === 'string')).to.equal(true);
  });
});
