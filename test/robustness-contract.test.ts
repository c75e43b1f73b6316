// @database
/** Robustness: generated well-formed bodies that break each operation's contract in one place (see support/contract-violations.ts) are each refused with a 400 naming the field, and leave the database sound with everything stored before unchanged. */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Operation } from '@trailproof/schema';
import type { TestServer } from '@trailproof/server/testing';
import { contractViolations, type DataViolation, type OperationViolations } from './support/contract-violations.ts';
import { multipart, send, type RawRequest } from './support/raw-http.ts';
import { build, expectClientError, operations, stormServer } from './support/request-storm.ts';

/** A request with a well-formed body that breaks the contract; `field` is what the answer must name. */
interface Violating {
  operation: string;
  request: RawRequest;
  category: string;
  field?: string;
  data?: DataViolation;
}

/** A surrogate code unit written the way UTF-8 writes a code point (CESU-8): bytes no strict UTF-8 decoder accepts. */
const cesu = (unit: number) => Buffer.from([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]);

/**
 * The data as JSON text, usually as JSON.stringify writes it (NUL and surrogates escaped); for
 * bad text, sometimes raw: a NUL byte inside a string, or a surrogate as its three UTF-8-like
 * bytes (CESU-8), neither of which is valid JSON / UTF-8, so the whole body is at fault.
 */
function encode(v: DataViolation, raw: boolean): { bytes: Buffer; rawFault: boolean } {
  const text = JSON.stringify(v.data);
  if (!raw || (v.category !== 'nul-character' && v.category !== 'lone-surrogate')) return { bytes: Buffer.from(text), rawFault: false };
  const pieces = text.split(/(\\u0000|\\ud[89ab][0-9a-f]{2}|\\ud[c-f][0-9a-f]{2})/);
  return {
    bytes: Buffer.concat(pieces.map((p, i) => (i % 2 === 0 ? Buffer.from(p) : p === '\\u0000' ? Buffer.from([0]) : cesu(parseInt(p.slice(2), 16))))),
    rawFault: true,
  };
}

function violatingRequest(operation: Operation, contract: OperationViolations): fc.Arbitrary<Violating> {
  const body = operation.body!;
  const dataPart = body.kind === 'json' ? 'body' : (body.dataField ?? 'data_json');
  const root = dataPart;
  const data: Array<fc.Arbitrary<DataViolation>> = [
    ...Object.values(contract.schema)
      .filter((list) => list.length)
      .map((list) => fc.constantFrom(...list)),
    contract.unknownField,
    contract.badText,
    contract.badText, // NUL and lone surrogates: two categories, so twice the weight
  ];
  const fromData = fc.tuple(fc.oneof(...data), fc.boolean(), fc.boolean()).map(([v, raw, asFile]): Violating => {
    // Raw bytes only where the server decodes them strictly: busboy decodes a form field itself,
    // turning invalid UTF-8 into U+FFFD (a decision: docs/decisions.md, robustness-findings.test.ts).
    const { bytes, rawFault } = encode(v, raw && (body.kind === 'json' || asFile));
    const textFault = v.category === 'nul-character' || v.category === 'lone-surrogate';
    const field = rawFault ? root : v.field || (textFault ? root : 'body');
    const sent =
      body.kind === 'json'
        ? { body: bytes, type: 'application/json' }
        : multipart([{ name: dataPart, content: bytes, ...(asFile ? { filename: 'data.json' } : {}) }]);
    return {
      operation: operation.id,
      request: build(operation, {}, '', sent, `${v.why}${rawFault ? ' (raw bytes)' : ''}`),
      category: v.category,
      field,
      data: v,
    };
  });
  if (body.kind === 'json') return fromData;

  const valid = JSON.stringify(contract.example);
  const files = Object.keys(body.files);
  const part = (name: string, content: string, filename?: string) => ({ name, content, ...(filename !== undefined ? { filename } : {}) });
  const parts = (category: string, field: string | undefined, why: string, list: Parameters<typeof multipart>[0]): Violating => ({
    operation: operation.id,
    request: build(operation, {}, '', multipart(list), `${category}: ${why}`),
    category,
    ...(field ? { field } : {}),
  });
  const duplicated = fc.constantFrom(
    parts('duplicated-parts', dataPart, 'data_json field twice', [part(dataPart, valid), part(dataPart, valid)]),
    parts('duplicated-parts', dataPart, 'data_json file twice', [part(dataPart, valid, 'a.json'), part(dataPart, valid, 'b.json')]),
    parts('duplicated-parts', dataPart, 'data_json as field and file', [part(dataPart, valid), part(dataPart, valid, 'a.json')]),
    ...files.flatMap((name) => [
      parts('duplicated-parts', name, `${name} twice`, [part(dataPart, valid), part(name, 'one', 'a.txt'), part(name, 'two', 'b.txt')]),
      parts('duplicated-parts', name, `${name} twice, the same bytes`, [part(name, 'same', 'a.txt'), part(dataPart, valid), part(name, 'same', 'a.txt')]),
    ]),
  );
  const empty = fc.constantFrom(
    parts('empty-parts', dataPart, 'empty data_json field', [part(dataPart, '')]),
    parts('empty-parts', dataPart, 'empty data_json file', [part(dataPart, '', 'data.json')]),
    parts('empty-parts', dataPart, 'empty data_json, then the real one', [part(dataPart, ''), part(dataPart, valid)]),
    parts('empty-parts', undefined, 'empty part without a name', [part('', ''), part(dataPart, valid)]),
    parts('empty-parts', undefined, 'part with no headers', [{ name: '', content: '', rawHeaders: '' }, part(dataPart, valid)]),
    // Refused at the first part, which the server names, before the empty data_json is read.
    parts('empty-parts', 'part 1', 'part without Content-Disposition', [
      { name: '', content: valid, rawHeaders: 'Content-Type: application/json\r\n' },
      part(dataPart, ''),
    ]),
    parts('empty-parts', 'other', 'empty unknown field', [part(dataPart, valid), part('other', '')]),
    ...files.map((name) => parts('empty-parts', dataPart, `empty ${name} without data_json`, [part(name, '', 'empty.txt')])),
  );
  // A NUL in a file name: raw in the header (busboy refuses the header) or RFC 5987-encoded (decoded into the name).
  const fileName = fc
    .tuple(fc.constantFrom(...files), fc.constantFrom('a%00b.xml', '%00', 'x.xml%00'))
    .chain(([name, encoded]) =>
      fc.constantFrom(
        parts('nul-character', undefined, `${name} file name with a raw NUL`, [part(dataPart, valid), part(name, 'content', decodeURIComponent(encoded))]),
        parts('nul-character', name, `${name} file name*=utf-8''${encoded}`, [
          part(dataPart, valid),
          { name, content: 'content', rawHeaders: `Content-Disposition: form-data; name="${name}"; filename*=utf-8''${encoded}\r\n` },
        ]),
      ),
    );
  return fc.oneof(fromData, fromData, fromData, duplicated, empty, ...(files.length ? [fileName] : []));
}

describe('robustness: generated malformed requests across every operation', function () {
  this.timeout(600_000);
  let server: TestServer;
  /** Still alive and serving, the file sound, nothing stored changed. */
  const expectUnchanged = stormServer((started) => (server = started));

  it('refuses every well-formed body that breaks the contract, naming the field, and changes nothing', async () => {
    const contracts = contractViolations(operations);
    const withBody = operations.filter((o) => contracts.has(o.id));
    const counts = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...withBody).chain((o) => violatingRequest(o, contracts.get(o.id)!)),
        async (v) => {
          // The generator's promise: schema violations are ones the contract itself refuses.
          if (v.data && !['nul-character', 'lone-surrogate'].includes(v.category))
            expect(contracts.get(v.operation)!.validate.data(structuredClone(v.data.data)).ok, v.request.why).to.equal(false);
          const res = await send(server.url, server.token, v.request);
          counts.set(v.category, (counts.get(v.category) ?? 0) + 1);
          const context = `${v.request.method} ${v.request.path.slice(0, 120)} (${v.request.why.slice(0, 200)}) → ${res.status} ${res.body.slice(0, 300)}`;
          const body = expectClientError(res, context);
          expect(res.status, context).to.equal(400);
          if (v.field) expect(body.errors ?? {}, context).to.have.property(v.field);
        },
      ),
      { numRuns: 2500 },
    );
    console.log(
      `      requests by category: ${[...counts]
        .sort()
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );
    expect([...counts.values()].reduce((a, b) => a + b, 0)).to.be.at.least(2500);
    await expectUnchanged();
  });
});
