// @database
/**
 * Multipart parts that busboy or multer leave out (issue 46, item 5): a file part without a usable
 * file name, a part with a missing or unparsable Content-Disposition, a part after the closing
 * boundary, unknown and repeated parts. Each is either stored and read back byte for byte, or a
 * 400 naming the part with nothing stored; never a 201 that lost it. On SQLite and on PostgreSQL
 * (TRAILPROOF_TEST_DATABASE).
 */
import { expect } from 'chai';
import { startTestServer, type TestServer, type TestResponse } from '@trailproof/server/testing';
import { whileProbingHealth } from './health-probe.ts';

const trailPath = '/api/v2/attestations/acme/app/trail/t1';
const evidence = Buffer.from([0, 1, 2, 0xff, 0xfe, 13, 10, 45, 45, 120, 0x80]);

/** A raw multipart body with boundary `b`: each part is its header lines and its content. */
function multipart(parts: Array<{ headers: string[]; content: Buffer | string }>, epilogue = ''): Buffer {
  const pieces = parts.flatMap(({ headers, content }) => [
    Buffer.from(`--b\r\n${headers.join('\r\n')}\r\n\r\n`, 'latin1'),
    Buffer.from(content),
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([...pieces, Buffer.from('--b--\r\n' + epilogue, 'latin1')]);
}

const dataPart = (name: string, type: 'generic' | 'junit' = 'generic') => ({
  headers: ['Content-Disposition: form-data; name="data_json"'],
  content: JSON.stringify(type === 'junit' ? { attestation_name: name, junit_results: [] } : { attestation_name: name, is_compliant: true }),
});
const filePart = (disposition: string, type = 'application/octet-stream', content: Buffer | string = evidence) => ({
  headers: [`Content-Disposition: ${disposition}`, ...(type ? [`Content-Type: ${type}`] : [])],
  content,
});

describe('hostile clients: multipart parts', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
    expect((await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'app' } })).status).to.be.oneOf([200, 201]);
    expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 't1' }) } })).status).to.equal(201);
  });
  after(() => server?.close());

  /** Posts `body` to `path` while health is probed; the probes must answer within 1 s. */
  async function post(path: string, body: Buffer, method = 'POST'): Promise<TestResponse> {
    const { result, slowestMs } = await whileProbingHealth(server, async () => {
      const response = await fetch(server.url + path, {
        method,
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'multipart/form-data; boundary=b' },
        body: new Uint8Array(body),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: JSON.parse(text) } as TestResponse;
    });
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    return result;
  }

  /** The stored attestation `name` of trail t1, with its attachment's name and bytes as downloaded. */
  async function storedAttachment(name: string): Promise<{ name: string | null; bytes: Buffer }> {
    const row = (await server.attestations('app', 't1')).find((r) => r.name === name);
    expect(row, `attestation ${name} stored`).to.not.equal(undefined);
    const response = await fetch(`${server.url}/api/v2/trails/acme/app/t1/attestations/${row!.id}/attachment`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    expect(response.status, 'the attachment downloads').to.equal(200);
    return { name: row!.attachmentName, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  async function expectStoredUnder(type: 'generic' | 'junit', name: string, attachment: ReturnType<typeof filePart>, givenName: string) {
    const content = type === 'junit' ? Buffer.from('<testsuite tests="1"><testcase name="a"/></testsuite>') : evidence;
    const answer = await post(`${trailPath}/${type}`, multipart([dataPart(name, type), { ...attachment, content }]));
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    const stored = await storedAttachment(name);
    expect(stored.name).to.equal(givenName);
    expect(stored.bytes.equals(content), 'the downloaded bytes are the bytes sent').to.equal(true);
  }

  async function expectRefused(body: Buffer, part: string, message: RegExp, path = `${trailPath}/generic`) {
    const before = (await server.attestations('app', 't1')).length;
    const answer = await post(path, body);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(400);
    expect(answer.body.message).to.be.a('string');
    expect(answer.body.errors, JSON.stringify(answer.body)).to.have.property(part).that.matches(message);
    expect((await server.attestations('app', 't1')).length, 'nothing stored').to.equal(before);
  }

  it('stores a file part with filename="" under the name of its part (generic and junit)', async () => {
    await expectStoredUnder('generic', 'empty-name', filePart('form-data; name="attachment_file"; filename=""'), 'attachment_file');
    await expectStoredUnder('junit', 'empty-name-junit', filePart('form-data; name="attachment_file"; filename=""'), 'attachment_file');
  });

  it('stores an application/octet-stream part without a file name under the name of its part', async () => {
    await expectStoredUnder('generic', 'no-name', filePart('form-data; name="attachment_file"'), 'attachment_file');
  });

  it('stores a file part whose name is only a path ("../", ".") under the name of its part', async () => {
    await expectStoredUnder('generic', 'path-name', filePart('form-data; name="attachment_file"; filename="../dir/"', ''), 'attachment_file');
    await expectStoredUnder('generic', 'dot-name', filePart('form-data; name="attachment_file"; filename="."', ''), 'attachment_file');
  });

  it('refuses a part whose filename* cannot be parsed, naming the part', async () => {
    for (const disposition of ['form-data; name="attachment_file"; filename*=garbage', 'form-data; name="attachment_file"; filename*=UTF-8\'\'%ZZ']) {
      await expectRefused(multipart([dataPart('bad-star'), filePart(disposition)]), 'attachment_file', /Content-Disposition .*cannot be read/);
    }
  });

  it('refuses a part without a Content-Disposition, or not form-data, naming it', async () => {
    await expectRefused(
      multipart([dataPart('no-disposition'), { headers: ['Content-Type: application/octet-stream'], content: evidence }]),
      'part 2',
      /has no Content-Disposition/,
    );
    const before = (await server.attestations('app', 't1')).length;
    const noHeaders = await post(`${trailPath}/generic`, multipart([dataPart('no-headers'), { headers: [], content: evidence }]));
    expect(noHeaders.status).to.equal(400);
    expect(noHeaders.body.message).to.match(/Malformed part header/);
    expect((await server.attestations('app', 't1')).length, 'nothing stored').to.equal(before);
    await expectRefused(
      multipart([dataPart('attachment-type'), filePart('attachment; name="attachment_file"; filename="a.bin"')]),
      'attachment_file',
      /not form-data/,
    );
  });

  it('refuses a part sent after the closing boundary', async () => {
    const late = '--b\r\nContent-Disposition: form-data; name="attachment_file"; filename="late.bin"\r\n\r\nlate\r\n--b--\r\n';
    await expectRefused(multipart([dataPart('late-part')], late), 'attachment_file', /after the closing boundary/);
  });

  it('refuses an unknown file part, with or without a file name, naming it', async () => {
    await expectRefused(multipart([dataPart('unknown'), filePart('form-data; name="other_file"; filename="a.bin"')]), 'other_file', /./);
    await expectRefused(multipart([dataPart('unknown-nameless'), filePart('form-data; name="other_file"')]), 'other_file', /not a known part/);
  });

  it('refuses two attachment_file parts, named or not', async () => {
    const named = filePart('form-data; name="attachment_file"; filename="a.bin"');
    await expectRefused(multipart([dataPart('two'), named, named]), 'attachment_file', /./);
    await expectRefused(multipart([dataPart('two-nameless'), named, filePart('form-data; name="attachment_file"')]), 'attachment_file', /sent twice/);
    await expectRefused(multipart([dataPart('two-nameless-first'), filePart('form-data; name="attachment_file"'), named]), 'attachment_file', /sent twice/);
  });

  it('refuses a part whose name has odd bytes, naming it', async () => {
    await expectRefused(multipart([dataPart('odd'), filePart('form-data; name="attachment_file\xff"; filename="a.bin"')]), 'attachment_file\ufffd', /./);
    await expectRefused(multipart([dataPart('odd-nameless'), filePart('form-data; name="attachment_file\xfe"')]), 'attachment_file\ufffd', /not a known part/);
  });

  it('refuses a part with a Content-Transfer-Encoding the server does not decode', async () => {
    const encoded = { ...filePart('form-data; name="attachment_file"; filename="a.bin"'), content: evidence.toString('base64') };
    encoded.headers.push('Content-Transfer-Encoding: base64');
    await expectRefused(multipart([dataPart('base64'), encoded]), 'attachment_file', /Content-Transfer-Encoding base64/);
  });

  it('reads data_json sent as a file part, named or not, and keeps the attachment', async () => {
    for (const [name, disposition] of [
      ['data-file', 'form-data; name="data_json"; filename="data.json"'],
      ['data-nameless', 'form-data; name="data_json"'],
    ] as const) {
      const data = filePart(disposition, 'application/octet-stream', JSON.stringify({ attestation_name: name, is_compliant: false, user_data: { k: 1 } }));
      const answer = await post(`${trailPath}/generic`, multipart([data, filePart('form-data; name="attachment_file"; filename="e.bin"')]));
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      const row = (await server.attestations('app', 't1')).find((r) => r.name === name)!;
      expect(row.compliant).to.equal(false);
      expect(await storedAttachment(name)).to.deep.equal({ name: 'e.bin', bytes: evidence });
    }
  });

  it('stores a template part without a file name (PUT template_file and begin trail)', async () => {
    const template = 'version: 1\ntrail:\n  attestations:\n  - name: unit-tests\n    type: junit\n';
    const data = { headers: ['Content-Disposition: form-data; name="data_json"'], content: JSON.stringify({ name: 'templated' }) };
    const put = await post(
      '/api/v2/flows/acme/template_file',
      multipart([data, filePart('form-data; name="template_file"', 'application/octet-stream', template)]),
      'PUT',
    );
    expect(put.status, JSON.stringify(put.body)).to.equal(201);
    const flow = await server.request('GET', '/api/v2/flows/acme/templated');
    expect(flow.body.template, 'the template was stored').to.not.equal(null);
    expect(JSON.stringify(flow.body.template)).to.include('unit-tests');

    const trail = { headers: ['Content-Disposition: form-data; name="data_json"'], content: JSON.stringify({ name: 'build-1' }) };
    const begun = await post(
      '/api/v2/trails/acme/templated',
      multipart([trail, filePart('form-data; name="template_file"; filename=""', 'application/octet-stream', 'not: [valid')]),
      'PUT',
    );
    expect(begun.status, 'the nameless template is read, and refused as YAML').to.equal(400);
    expect(begun.body.errors).to.have.property('template_file');
  });
});
