// @database
/** Robustness: thousands of generated wholly invalid requests (paths, queries, bodies, tokens) across every operation each get a 4xx JSON error, never a 5xx, crash or hang, and leave the database sound with everything stored before unchanged. */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Operation } from '@trailproof/schema';
import type { TestServer } from '@trailproof/server/testing';
import { multipart, send, type RawRequest } from './support/raw-http.ts';
import { build, expectClientError, operations, stormServer } from './support/request-storm.ts';

/** Values that no path parameter accepts (each breaks the name pattern, length or integer rule). */
const evilSegment = fc.oneof(
  fc.constantFrom('..', '.', 'a%2Fb', '%2F', 'a%00b', '%zz', '%E0%A4%A', 'sp%20ace', '%F0%9F%92%A5', 'caf%C3%A9', '%3Cscript%3E'),
  fc.integer({ min: 129, max: 6000 }).map((n) => 'x'.repeat(n)),
);
const evilNumber = fc.constantFrom('abc', '0', '1.5', '-0', '99999999999999999999', '1e400', '0x10', ' 1');

/** A query value that the schema of `name` refuses. */
function evilQueryValue(schema: { type?: string; anyOf?: unknown[]; items?: { anyOf?: unknown[]; $ref?: string } }) {
  if (schema.type === 'integer' || schema.type === 'number') return fc.constantFrom('abc', '-5', '99999999999999999999999', '1e400', 'NaN', '', '1.5.2', '--1');
  // A union with a free-text branch (`tag`: one value or many) refuses only what is too long.
  const freeText = (b: unknown) => {
    const branch = b as { type?: string; enum?: unknown; const?: unknown; pattern?: unknown };
    return branch.type === 'string' && branch.enum === undefined && branch.const === undefined && branch.pattern === undefined;
  };
  if (schema.anyOf?.some(freeText)) return fc.integer({ min: 300, max: 4000 }).map((n) => 'q'.repeat(n));
  if (schema.anyOf || schema.items?.anyOf || schema.items?.$ref) return fc.string({ minLength: 1, maxLength: 20 }).map((s) => `not-a-value-${s}`);
  return fc.integer({ min: 300, max: 4000 }).map((n) => 'q'.repeat(n));
}

const invalidUtf8 = Buffer.from([0x7b, 0xff, 0xfe, 0x22, 0x7d]); // "{", two bytes no UTF-8 allows, "\"", "}"
const deepJson = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

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
      dataVariants.map((text) => ({
        body: Buffer.from(text, text === invalidUtf8.toString('latin1') ? 'latin1' : 'utf8'),
        type: 'application/json',
        why: `json body ${text.slice(0, 30)}`,
      })),
      fc.constant({ body: invalidUtf8, type: 'application/json', why: 'invalid UTF-8' }),
      fc.constant({ body: Buffer.from('{"x":"' + 'y'.repeat(1024 * 1024 + 10) + '"}'), type: 'application/json', why: 'over 1MB' }),
      fc
        .constantFrom('text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/xml')
        .map((type) => ({ body: Buffer.from('{}'), type, why: `content type ${type}` })),
    );
  }
  const fileNames = Object.keys(operation.body!.files);
  return fc.oneof(
    dataVariants.map((text) => ({ ...multipart([{ name: 'data_json', content: text }]), why: `data_json ${text.slice(0, 30)}` })),
    fc.constant({ ...multipart([{ name: 'data_json', content: invalidUtf8, filename: 'data.json' }]), why: 'data_json file with invalid UTF-8' }),
    fc.constant({
      ...multipart([
        { name: 'data_json', content: '{}' },
        { name: 'data_json', content: '{}' },
      ]),
      why: 'data_json twice',
    }),
    fc.constant({ ...multipart([{ name: 'other', content: 'x' }]), why: 'no data_json, unknown field' }),
    fc.constant({
      ...multipart([
        { name: 'data_json', content: '{}' },
        { name: 'unexpected_file', content: 'x', filename: 'f.txt' },
      ]),
      why: 'unexpected file part',
    }),
    fc.constant({ ...multipart([{ name: 'data_json', content: 'x'.repeat(1024 * 1024 + 10) }]), why: 'data_json over 1MB' }),
    fc.constant({ ...multipart([{ name: '', content: '{}' }]), why: 'part without a name' }),
    fc.constant({
      body: Buffer.from('--trailproofBoundary\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n{"na'),
      type: 'multipart/form-data; boundary=trailproofBoundary',
      why: 'truncated multipart',
    }),
    fc.constant({
      body: multipart([{ name: 'data_json', content: '{}' }], 'other').body,
      type: 'multipart/form-data; boundary=trailproofBoundary',
      why: 'wrong boundary',
    }),
    fc.constant({ body: Buffer.alloc(0), type: 'multipart/form-data; boundary=trailproofBoundary', why: 'empty multipart' }),
    fc
      .constantFrom('application/json', 'text/plain', 'application/octet-stream')
      .map((type) => ({ body: Buffer.from('{}'), type, why: `content type ${type}` })),
    ...(fileNames.length
      ? [
          fc.constantFrom(...fileNames).map((name) => ({
            ...multipart([
              { name: 'data_json', content: 'not json' },
              { name, content: Buffer.alloc(10 * 1024 * 1024 + 1), filename: 'big.bin' },
            ]),
            why: `${name} over 10MB`,
          })),
        ]
      : []),
  );
}

/** One malformed request for `operation`: at least one part is certainly invalid. */
function malformedRequest(operation: Operation): fc.Arbitrary<RawRequest> {
  const paramNames = Object.keys(operation.params.properties);
  const queryNames = Object.keys(operation.query.properties);
  const strategies: Array<fc.Arbitrary<RawRequest>> = [];
  const validBody = operation.body
    ? operation.body.kind === 'json'
      ? { body: Buffer.from('{}'), type: 'application/json' }
      : multipart([{ name: 'data_json', content: '{}' }])
    : undefined;

  strategies.push(
    fc
      .constantFrom(...paramNames)
      .chain((name) => fc.tuple(fc.constant(name), name === 'approval_number' ? fc.oneof(evilSegment, evilNumber) : evilSegment))
      .map(([name, value]) => build(operation, { [name]: value.replace(/ /g, '%20') }, '', validBody, `path ${name}=${value.slice(0, 30)}`)),
  );
  if (queryNames.length) {
    strategies.push(
      fc
        .constantFrom(...queryNames)
        .chain((name) => fc.tuple(fc.constant(name), evilQueryValue(operation.query.properties[name] as never), fc.boolean()))
        .map(([name, value, repeat]) =>
          build(
            operation,
            {},
            `${name}=${encodeURIComponent(value)}${repeat ? `&${name}=${encodeURIComponent(value)}` : ''}&page=1`,
            validBody,
            `query ${name}=${value.slice(0, 30)}`,
          ),
        ),
    );
  }
  if (operation.body) strategies.push(evilBody(operation).map((b) => build(operation, {}, '', b, b.why)));
  strategies.push(
    fc
      .constantFrom('Basic YWNtZTpzZWNyZXQ=', 'Bearer', 'Bearer tp_short', 'Bearer tp_AAAAAAAAAAAAAAAA_' + 'A'.repeat(43), 'bearer  ', 'Token abc')
      .map((auth) => build(operation, {}, '', validBody, `authorization ${auth}`, { authorization: auth })),
  );
  return fc.oneof(...strategies);
}

describe('robustness: generated malformed requests across every operation', function () {
  this.timeout(600_000);
  let server: TestServer;
  /** Still alive and serving, the file sound, nothing stored changed. */
  const expectUnchanged = stormServer((started) => (server = started));

  it('answers every wholly invalid request with a 4xx JSON error and changes nothing', async () => {
    const counts = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...operations).chain(malformedRequest), async (req) => {
        const res = await send(server.url, server.token, req);
        const kind = /^(path|query|authorization) /.exec(req.why)?.[1] ?? 'body';
        counts.set(kind, (counts.get(kind) ?? 0) + 1);
        expectClientError(res, `${req.method} ${req.path.slice(0, 120)} (${req.why}) → ${res.status} ${res.body.slice(0, 200)}`);
      }),
      { numRuns: 2000 },
    );
    console.log(
      `      requests by kind: ${[...counts]
        .sort()
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );
    expect([...counts.values()].reduce((a, b) => a + b, 0)).to.be.at.least(2000);
    await expectUnchanged();
  });
});
