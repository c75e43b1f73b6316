/**
 * Robustness: thousands of generated malformed requests across every operation. Every answer
 * must be a 4xx with the JSON error shape (never a 5xx, crash or hang), and afterwards the
 * database passes its integrity check with everything stored before unchanged.
 */
import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import type { Operation } from '@trailproof/schema';
import { defaultPlugins } from '@trailproof/server';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { databaseFingerprint, sqliteIntegrity } from './support/db-fingerprint.ts';

interface RawRequest { method: string; path: string; headers: Record<string, string>; body?: Buffer; why: string }

const operations: Operation[] = defaultPlugins.map((p) => p.operation);
const validParams: Record<string, string> = { org: 'acme', flow_name: 'app', trail_name: 't1', env_name: 'production', approval_number: '1' };

/** Values that no path parameter accepts (each breaks the name pattern, length or integer rule). */
const evilSegment = fc.oneof(
  fc.constantFrom('..', '.', 'a%2Fb', '%2F', 'a%00b', '%zz', '%E0%A4%A', 'sp%20ace', '%F0%9F%92%A5', 'caf%C3%A9', '%3Cscript%3E'),
  fc.integer({ min: 129, max: 6000 }).map((n) => 'x'.repeat(n)),
);
const evilNumber = fc.constantFrom('abc', '0', '1.5', '-0', '99999999999999999999', '1e400', '0x10', ' 1');

/** A query value that the schema of `name` refuses. */
function evilQueryValue(schema: { type?: string; anyOf?: unknown[]; items?: { anyOf?: unknown[]; $ref?: string } }) {
  if (schema.type === 'integer' || schema.type === 'number') return fc.constantFrom('abc', '-5', '99999999999999999999999', '1e400', 'NaN', '', '1.5.2', '--1');
  if (schema.anyOf || schema.items?.anyOf || schema.items?.$ref) return fc.string({ minLength: 1, maxLength: 20 }).map((s) => `not-a-value-${s}`);
  return fc.integer({ min: 300, max: 4000 }).map((n) => 'q'.repeat(n));
}

const invalidUtf8 = Buffer.from([0x7b, 0xff, 0xfe, 0x22, 0x7d]); // "{", two bytes no UTF-8 allows, "\"", "}"
const deepJson = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

function multipart(parts: Array<{ name: string; content: Buffer | string; filename?: string }>, boundary = 'trailproofBoundary') {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

/** Bodies that no operation with a body accepts. */
function evilBody(operation: Operation) {
  const kind = operation.body!.kind;
  const dataVariants = fc.oneof(
    fc.constantFrom('not json', '{"a":', '[1,2', '', 'null', '123', '"text"', '[]', 'true'),
    fc.integer({ min: 40, max: 3000 }).map(deepJson),
    fc.constant(invalidUtf8.toString('latin1')),
  );
  if (kind === 'json') {
    return fc.oneof(
      dataVariants.map((text) => ({ body: Buffer.from(text, text === invalidUtf8.toString('latin1') ? 'latin1' : 'utf8'), type: 'application/json', why: `json body ${text.slice(0, 30)}` })),
      fc.constant({ body: invalidUtf8, type: 'application/json', why: 'invalid UTF-8' }),
      fc.constant({ body: Buffer.from('{"x":"' + 'y'.repeat(1024 * 1024 + 10) + '"}'), type: 'application/json', why: 'over 1MB' }),
      fc.constantFrom('text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/xml')
        .map((type) => ({ body: Buffer.from('{}'), type, why: `content type ${type}` })),
    );
  }
  const fileNames = Object.keys(operation.body!.files);
  return fc.oneof(
    dataVariants.map((text) => ({ ...multipart([{ name: 'data_json', content: text }]), why: `data_json ${text.slice(0, 30)}` })),
    fc.constant({ ...multipart([{ name: 'data_json', content: invalidUtf8, filename: 'data.json' }]), why: 'data_json file with invalid UTF-8' }),
    fc.constant({ ...multipart([{ name: 'data_json', content: '{}' }, { name: 'data_json', content: '{}' }]), why: 'data_json twice' }),
    fc.constant({ ...multipart([{ name: 'other', content: 'x' }]), why: 'no data_json, unknown field' }),
    fc.constant({ ...multipart([{ name: 'data_json', content: '{}' }, { name: 'unexpected_file', content: 'x', filename: 'f.txt' }]), why: 'unexpected file part' }),
    fc.constant({ ...multipart([{ name: 'data_json', content: 'x'.repeat(1024 * 1024 + 10) }]), why: 'data_json over 1MB' }),
    fc.constant({ ...multipart([{ name: '', content: '{}' }]), why: 'part without a name' }),
    fc.constant({ body: Buffer.from('--trailproofBoundary\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n{"na'), type: 'multipart/form-data; boundary=trailproofBoundary', why: 'truncated multipart' }),
    fc.constant({ body: multipart([{ name: 'data_json', content: '{}' }], 'other').body, type: 'multipart/form-data; boundary=trailproofBoundary', why: 'wrong boundary' }),
    fc.constant({ body: Buffer.alloc(0), type: 'multipart/form-data; boundary=trailproofBoundary', why: 'empty multipart' }),
    fc.constantFrom('application/json', 'text/plain', 'application/octet-stream').map((type) => ({ body: Buffer.from('{}'), type, why: `content type ${type}` })),
    ...(fileNames.length
      ? [fc.constantFrom(...fileNames).map((name) => ({ ...multipart([{ name: 'data_json', content: 'not json' }, { name, content: Buffer.alloc(10 * 1024 * 1024 + 1), filename: 'big.bin' }]), why: `${name} over 10MB` }))]
      : []),
  );
}

/** One malformed request for `operation`: at least one part is certainly invalid. */
function malformedRequest(operation: Operation): fc.Arbitrary<RawRequest> {
  const paramNames = Object.keys(operation.params.properties);
  const queryNames = Object.keys(operation.query.properties);
  const strategies: Array<fc.Arbitrary<RawRequest>> = [];
  const build = (params: Record<string, string>, query: string, body?: { body: Buffer; type: string }, why = '', headers: Record<string, string> = {}): RawRequest => ({
    method: operation.method,
    path: '/api/v2' + operation.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? validParams[name] ?? 'x1') + (query ? `?${query}` : ''),
    headers: { ...(body ? { 'content-type': body.type } : {}), ...headers },
    ...(body ? { body: body.body } : {}),
    why,
  });
  const validBody = operation.body ? (operation.body.kind === 'json' ? { body: Buffer.from('{}'), type: 'application/json' } : multipart([{ name: 'data_json', content: '{}' }])) : undefined;

  strategies.push(fc.constantFrom(...paramNames)
    .chain((name) => fc.tuple(fc.constant(name), name === 'approval_number' ? fc.oneof(evilSegment, evilNumber) : evilSegment))
    .map(([name, value]) => build({ [name]: value.replace(/ /g, '%20') }, '', validBody, `path ${name}=${value.slice(0, 30)}`)));
  if (queryNames.length) {
    strategies.push(fc.constantFrom(...queryNames).chain((name) =>
      fc.tuple(fc.constant(name), evilQueryValue(operation.query.properties[name] as never), fc.boolean()))
      .map(([name, value, repeat]) => build({}, `${name}=${encodeURIComponent(value)}${repeat ? `&${name}=${encodeURIComponent(value)}` : ''}&page=1`, validBody, `query ${name}=${value.slice(0, 30)}`)));
  }
  if (operation.body) strategies.push(evilBody(operation).map((b) => build({}, '', b, b.why)));
  strategies.push(fc.constantFrom('Basic YWNtZTpzZWNyZXQ=', 'Bearer', 'Bearer tp_short', 'Bearer tp_AAAAAAAAAAAAAAAA_' + 'A'.repeat(43), 'bearer  ', 'Token abc')
    .map((auth) => build({}, '', validBody, `authorization ${auth}`, { authorization: auth })));
  return fc.oneof(...strategies);
}

function send(url: string, token: string, req: RawRequest): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, ...req.headers };
    if (req.body) headers['content-length'] = req.body.length;
    const r = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.path, headers, timeout: 15_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
    });
    r.on('timeout', () => r.destroy(new Error(`no answer in 15s: ${req.method} ${req.path.slice(0, 100)} (${req.why})`)));
    // The server may answer (413/415) and close before reading a large body; the answer still counts.
    r.on('error', reject);
    r.end(req.body);
  });
}

describe('robustness: generated malformed requests across every operation', function () {
  this.timeout(600_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
    // Evidence stored before the storm, which must come through unchanged.
    expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 't1' }) } })).status).to.equal(201);
    expect((await server.request('POST', '/api/v2/attestations/acme/app/trail/t1/junit', {
      form: { data_json: JSON.stringify({ attestation_name: 'unit', junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 1 }] }), attachment_file: { content: 'evidence' } },
    })).status).to.equal(201);
  });
  after(() => server.close());

  it('answers every one with a 4xx JSON error and changes nothing', async () => {
    const location = { file: server.file, ...(server.backend === 'postgres' ? { url: server.location, schema: server.schema } : {}) };
    const before = await databaseFingerprint(location);
    let count = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...operations).chain(malformedRequest), async (req) => {
        const res = await send(server.url, server.token, req);
        count++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const context = `${req.method} ${req.path.slice(0, 120)} (${req.why}) → ${res.status} ${res.body.slice(0, 200)}`;
        expect(res.status, context).to.be.within(400, 499);
        expect(res.type, context).to.contain('application/json');
        const body = JSON.parse(res.body) as { message?: unknown; errors?: Record<string, unknown> };
        expect(body.message, context).to.be.a('string');
        if (body.errors !== undefined) for (const value of Object.values(body.errors)) expect(value, context).to.be.a('string');
      }),
      { numRuns: 2000 },
    );
    expect(count).to.be.at.least(2000);
    expect([...statuses.keys()].every((s) => s >= 400 && s < 500)).to.equal(true);
    // Still alive and serving.
    expect((await server.request('GET', '/api/v2/environments/acme')).status).to.equal(200);
    if (server.backend === 'sqlite') expect(sqliteIntegrity(server.file)).to.equal('ok');
    expect(await databaseFingerprint(location)).to.deep.equal(before);
  });
});
