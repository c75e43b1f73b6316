// @database
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { attestJunit } from '@trailproof/schema';
import { assertMatchesContract, type TestServer } from '@trailproof/server/testing';
import { builtTesting } from '../../../../test/support/built-testing.ts';

const path = '/api/v2/attestations/acme/backend/trail/build-1/junit';
const suite = (over: Record<string, unknown> = {}) => ({
  name: 'api',
  failures: 0,
  errors: 0,
  skipped: 1,
  total: 120,
  duration: 3.25,
  timestamp: 1_763_800_000.5,
  ...over,
});
const fingerprint = createHash('sha256').update('image:1').digest('hex');
/** Every byte value, twice, then some: binary content that a text round-trip would damage. */
const binary = new Uint8Array(600).map((_, i) => (i * 7 + 3) % 256);

describe('attest JUnit: POST /attestations/{org}/{flow_name}/trail/{trail_name}/junit', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await (await builtTesting()).startTestServer();
    const begun = await server.request('PUT', '/api/v2/trails/acme/backend', { form: { data_json: JSON.stringify({ name: 'build-1' }) } });
    expect(begun.status).to.equal(201);
  });
  afterEach(() => server.close());

  const attest = (data: unknown, extra: Record<string, string | { content: Uint8Array | string; name?: string }> = {}, to = path) =>
    server.request('POST', to, { form: { data_json: JSON.stringify(data), ...extra } });
  const stored = () => server.attestations('backend', 'build-1');

  it('answers 201 with a JSON string and stores the results, the attachment bytes and their SHA-256', async () => {
    const data = {
      attestation_name: 'unit-tests',
      junit_results: [suite(), suite({ name: 'db', skipped: 0, total: 7, duration: 0.125, timestamp: null })],
      artifact_fingerprint: fingerprint,
      target_artifacts: ['api'],
      description: 'unit tests',
      origin_url: 'https://ci.example.com/run/7',
      git_commit_info: { sha1: '0123456789abcdef0123456789abcdef01234567', branch: 'main' },
      repo_info: { name: 'acme/backend', url: 'https://git.example.com/acme/backend' },
      external_urls: { logs: 'https://ci.example.com/logs/7' },
      annotations: { runner: 'linux' },
      user_data: { build: 7 },
    };
    const res = await attest(data, { attachment_file: { content: binary, name: 'report.xml' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    assertMatchesContract(attestJunit, 201, res.body);
    expect(res.body).to.be.a('string').and.to.contain('unit-tests').and.to.contain('build-1');

    const [attestation, ...others] = await stored();
    expect(others).to.have.length(0);
    expect(attestation!.name).to.equal('unit-tests');
    expect(attestation!.type).to.equal('junit');
    expect(attestation!.data).to.deep.equal(data);
    expect((attestation!.data as typeof data).junit_results).to.deep.equal(data.junit_results);
    expect(attestation!.artifactFingerprint).to.equal(fingerprint);
    expect(attestation!.compliant).to.equal(true);
    expect(attestation!.attachmentName).to.equal('report.xml');
    expect(attestation!.attachmentSize).to.equal(binary.byteLength);
    const sha = createHash('sha256').update(binary).digest('hex');
    expect(attestation!.attachmentSha256).to.equal(sha);
    const blob = (await server.store.getBlob(sha))!;
    expect(Buffer.from(blob.content).equals(Buffer.from(binary))).to.equal(true);
    expect(blob.size).to.equal(binary.byteLength);
  });

  it('stores no attachment when none is sent', async () => {
    expect((await attest({ attestation_name: 'unit', junit_results: [suite()] })).status).to.equal(201);
    const [attestation] = await stored();
    expect(attestation!.attachmentSha256).to.equal(null);
    expect(attestation!.attachmentName).to.equal(null);
  });

  it('is compliant only when no suite has failures or errors', async () => {
    const cases: Array<[string, object[], boolean]> = [
      ['passing', [suite(), suite({ name: 'b' })], true],
      ['empty', [], true],
      ['failing', [suite(), suite({ name: 'b', failures: 1 })], false],
      ['erroring', [suite({ errors: 2 })], false],
      ['skipped-only', [suite({ skipped: 120 })], true],
    ];
    for (const [name, results] of cases) expect((await attest({ attestation_name: name, junit_results: results })).status).to.equal(201);
    const byName = Object.fromEntries((await stored()).map((a) => [a.name, a.compliant]));
    expect(byName).to.deep.equal(Object.fromEntries(cases.map(([name, , compliant]) => [name, compliant])));
  });

  it('keeps both rows when the same attestation name is sent twice, oldest first', async () => {
    expect((await attest({ attestation_name: 'unit', junit_results: [suite({ failures: 3 })] })).status).to.equal(201);
    expect((await attest({ attestation_name: 'unit', junit_results: [suite()] })).status).to.equal(201);
    const rows = await stored();
    expect(rows.map((a) => [a.name, a.compliant])).to.deep.equal([
      ['unit', false],
      ['unit', true],
    ]);
    expect(rows[0]!.id).to.be.below(rows[1]!.id);
  });

  it("makes the flow and the trail on first use, without a template, begun with the attestation's commit", async () => {
    const commit = { sha1: 'a'.repeat(40), message: 'm', author: 'Ada', branch: 'main', timestamp: 1_700_000_000 };
    const data = { attestation_name: 'unit', junit_results: [suite()], git_commit_info: commit };
    for (const [flow, trail] of [
      ['backend', 'no-such-trail'],
      ['no-such-flow', 'build-1'],
    ]) {
      const res = await attest(data, {}, `/api/v2/attestations/acme/${flow}/trail/${trail}/junit`);
      expect(res.status, `${flow}/${trail}`).to.equal(201);
      expect((await server.attestations(flow!, trail!)).map((a) => a.name)).to.deep.equal(['unit']);
    }
    const organizationId = Number((await server.store.findOrganization('acme'))!.id);
    const made = (await server.store.findTrail(organizationId, 'no-such-flow', 'build-1'))!;
    expect(made.gitCommitInfo).to.deep.include({ sha1: 'a'.repeat(40) });
    expect(made.effectiveTemplateSha256).to.equal(null);
    expect(await stored()).to.have.length(0);
  });

  it('answers 400 naming each invalid field by its path, and stores nothing', async () => {
    const cases: Array<[string, unknown, string[]]> = [
      ['bad name', { attestation_name: 'unit tests!', junit_results: [] }, ['attestation_name']],
      [
        'negative counts',
        { attestation_name: 'unit', junit_results: [suite(), suite({ failures: -1, total: -5 })] },
        ['junit_results.1.failures', 'junit_results.1.total'],
      ],
      ['fractional count', { attestation_name: 'unit', junit_results: [suite({ errors: 1.5 })] }, ['junit_results.0.errors']],
      ['missing junit_results', { attestation_name: 'unit' }, ['junit_results']],
      [
        'missing suite field',
        { attestation_name: 'unit', junit_results: [{ name: 'a', failures: 0, errors: 0, skipped: 0, duration: 1 }] },
        ['junit_results.0.total'],
      ],
      ['short fingerprint', { attestation_name: 'unit', junit_results: [], artifact_fingerprint: 'abc123' }, ['artifact_fingerprint']],
      ['upper-case fingerprint', { attestation_name: 'unit', junit_results: [], artifact_fingerprint: fingerprint.toUpperCase() }, ['artifact_fingerprint']],
      ['unknown field', { attestation_name: 'unit', junit_results: [], compliant: true }, ['compliant']],
      ['unknown suite field', { attestation_name: 'unit', junit_results: [suite({ passed: 3 })] }, ['junit_results.0.passed']],
      ['not an object', [1, 2], ['body']],
    ];
    for (const [label, data, fields] of cases) {
      const res = await attest(data);
      expect(res.status, label).to.equal(400);
      assertMatchesContract(attestJunit, 400, res.body);
      expect(res.body.errors, label).to.have.keys(fields);
    }
    expect(await stored()).to.have.length(0);
  });

  it('accepts data_json as a file part', async () => {
    const res = await server.request('POST', path, {
      form: {
        data_json: { content: JSON.stringify({ attestation_name: 'from-file', junit_results: [suite()] }), name: 'data.json', type: 'application/json' },
      },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect((await stored()).map((a) => a.name)).to.deep.equal(['from-file']);
  });

  it('refuses an attachment over 10MB with 413 and stores nothing', async () => {
    const big = new Uint8Array(10 * 1024 * 1024 + 1).fill(65);
    const res = await attest({ attestation_name: 'unit', junit_results: [] }, { attachment_file: { content: big, name: 'big.xml' } });
    expect(res.status).to.equal(413);
    expect(res.body.message).to.match(/too large/i);
    expect(await stored()).to.have.length(0);
    expect(await server.store.getBlob(createHash('sha256').update(big).digest('hex'))).to.equal(undefined);
    // exactly 10MB is accepted
    const limit = big.subarray(1);
    expect((await attest({ attestation_name: 'unit', junit_results: [] }, { attachment_file: { content: limit } })).status).to.equal(201);
    expect((await stored())[0]!.attachmentSize).to.equal(10 * 1024 * 1024);
  });

  it('answers 415 to a JSON body', async () => {
    const res = await server.request('POST', path, { json: { attestation_name: 'unit', junit_results: [] } });
    expect(res.status).to.equal(415);
    expect(res.body.message).to.match(/multipart\/form-data/);
    expect(await stored()).to.have.length(0);
  });

  it('answers 400 to an unknown form field, an unexpected file part and data_json sent twice', async () => {
    const data = JSON.stringify({ attestation_name: 'unit', junit_results: [] });
    const unknown = await server.request('POST', path, { form: { data_json: data, attestation_name: 'x' } });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.errors).to.have.keys(['attestation_name']);
    const file = await server.request('POST', path, { form: { data_json: data, template_file: { content: 'x' } } });
    expect(file.status).to.equal(400);
    expect(file.body.errors).to.have.keys(['template_file']);
    for (const second of ['field', 'file'] as const) {
      const form = new FormData();
      form.append('data_json', data);
      if (second === 'field') form.append('data_json', data);
      else form.append('data_json', new Blob([data]), 'data.json');
      const twice = await server.request('POST', path, { body: form });
      expect(twice.status, second).to.equal(400);
      expect(twice.body.errors, second).to.have.keys(['data_json']);
    }
    expect(await stored()).to.have.length(0);
  });

  it('answers 400, never 500, to malformed multipart bodies', async () => {
    const headers = { 'content-type': 'multipart/form-data; boundary=x' };
    const bodies = [
      '--x\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n{"attestation_name":"unit","junit_results":[]}', // never closed
      '--x\r\nContent-Disposition: form-data; name="data_json"\r\n', // ends inside the part headers
      '--y\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n{}\r\n--y--\r\n', // another boundary
      '--x\r\nno header separator\r\n\r\n{}\r\n--x--\r\n',
      '',
    ];
    for (const body of bodies) {
      const res = await server.request('POST', path, { headers, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.message, JSON.stringify(body)).to.be.a('string');
    }
    const noBoundary = await server.request('POST', path, { headers: { 'content-type': 'multipart/form-data' }, body: 'x' });
    expect(noBoundary.status).to.equal(400);
    expect(await stored()).to.have.length(0);
  });
});
