// @database
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { attestGeneric, getTrail } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';

const path = (trail = 'build-1') => `/api/v2/attestations/acme/backend/trail/${trail}/generic`;
const fingerprint = createHash('sha256').update('image:1').digest('hex');
const template = 'version: 1\ntrail:\n  attestations:\n  - name: manual-test\n    type: generic\n  - name: unit-tests\n    type: junit\n';

describe('attest generic: POST /attestations/{org}/{flow_name}/trail/{trail_name}/generic', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
    const begun = await server.request('PUT', '/api/v2/trails/acme/backend', { form: { data_json: JSON.stringify({ name: 'build-1' }) } });
    expect(begun.status).to.equal(201);
  });
  afterEach(() => server.close());

  const attest = (data: unknown, extra: Record<string, { content: Uint8Array | string; name?: string }> = {}, options: { to?: string; token?: string } = {}) =>
    server.request('POST', options.to ?? path(), { form: { data_json: JSON.stringify(data), ...extra }, ...(options.token ? { token: options.token } : {}) });
  const stored = () => server.attestations('backend', 'build-1');

  it('answers 201 with a JSON string and stores the data as sent, of type generic, with its attachment', async () => {
    const data = {
      attestation_name: 'manual-test',
      is_compliant: true,
      description: 'checked by hand',
      origin_url: 'https://ci.example.com/run/7',
      artifact_fingerprint: fingerprint,
      target_artifacts: ['api'],
      git_commit_info: { sha1: '0123456789abcdef0123456789abcdef01234567', branch: 'main' },
      repo_info: { name: 'acme/backend', url: 'https://git.example.com/acme/backend' },
      external_urls: { notes: 'https://wiki.example.com/t/7' },
      annotations: { tester: 'ada' },
      user_data: { session: 7 },
    };
    const res = await attest(data, { attachment_file: { content: 'screenshots', name: 'evidence.txt' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    assertMatchesContract(attestGeneric, 201, res.body);
    expect(res.body).to.equal("generic attestation 'manual-test' was added to trail 'build-1'");

    const [attestation, ...others] = await stored();
    expect(others).to.have.length(0);
    expect(attestation).to.deep.include({
      name: 'manual-test',
      type: 'generic',
      compliant: true,
      artifactFingerprint: fingerprint,
      attachmentName: 'evidence.txt',
      attachmentSize: 11,
    });
    expect(attestation!.data).to.deep.equal(data);
    const blob = (await server.store.getBlob(attestation!.attachmentSha256!))!;
    expect(Buffer.from(blob.content).toString()).to.equal('screenshots');
  });

  it('is compliant exactly as is_compliant says', async () => {
    expect((await attest({ attestation_name: 'scan', is_compliant: false })).status).to.equal(201);
    expect((await attest({ attestation_name: 'review', is_compliant: true })).status).to.equal(201);
    const byName = Object.fromEntries((await stored()).map((a) => [a.name, a.compliant]));
    expect(byName).to.deep.equal({ scan: false, review: true });
  });

  it("fulfils a template's generic requirement, and the trail reads back with it", async () => {
    await server.request('PUT', '/api/v2/flows/acme/template_file', {
      form: { data_json: JSON.stringify({ name: 'app' }), template_file: { content: template } },
    });
    const begin = (name: string) => server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name }) } });
    const attestTo = (trail: string, kind: 'generic' | 'junit', data: object) =>
      server.request('POST', `/api/v2/attestations/acme/app/trail/${trail}/${kind}`, { form: { data_json: JSON.stringify(data) } });
    expect((await begin('b1')).status).to.equal(201);
    expect((await attestTo('b1', 'junit', { attestation_name: 'unit-tests', junit_results: [] })).status).to.equal(201);

    const missing = await server.request('GET', '/api/v2/trails/acme/app/b1');
    expect(missing.body).to.deep.include({ compliance_state: 'NON-COMPLIANT' });
    expect(missing.body.compliance_status.reasons).to.deep.equal(["required attestation 'manual-test' (generic) is missing"]);

    expect((await attestTo('b1', 'generic', { attestation_name: 'manual-test', is_compliant: false })).status).to.equal(201);
    const failed = await server.request('GET', '/api/v2/trails/acme/app/b1');
    expect(failed.body).to.deep.include({ compliance_state: 'NON-COMPLIANT' });
    expect(failed.body.compliance_status.reasons.join('\n')).to.contain('manual-test');

    // A later attestation of the same name supersedes the earlier one.
    expect((await attestTo('b1', 'generic', { attestation_name: 'manual-test', is_compliant: true })).status).to.equal(201);
    const passed = await server.request('GET', '/api/v2/trails/acme/app/b1');
    assertMatchesContract(getTrail, 200, passed.body);
    expect(passed.body).to.deep.include({ compliance_state: 'COMPLIANT', is_compliant: true });
    const view = passed.body.attestations.find(
      (a: { attestation_name: string; is_compliant: boolean }) => a.attestation_name === 'manual-test' && a.is_compliant,
    );
    expect(view).to.deep.include({ attestation_type: 'generic', junit_results: null, totals: null });

    // A generic attestation under a name the template wants as junit does not satisfy it.
    expect((await begin('b2')).status).to.equal(201);
    expect((await attestTo('b2', 'generic', { attestation_name: 'manual-test', is_compliant: true })).status).to.equal(201);
    expect((await attestTo('b2', 'generic', { attestation_name: 'unit-tests', is_compliant: true })).status).to.equal(201);
    const wrongType = await server.request('GET', '/api/v2/trails/acme/app/b2');
    expect(wrongType.body).to.deep.include({ compliance_state: 'NON-COMPLIANT' });
    expect(wrongType.body.compliance_status.reasons.join('\n')).to.contain("attestation 'unit-tests' is of type 'generic' but the template requires 'junit'");
  });

  it('refuses bad input with 400 naming the field, and stores nothing', async () => {
    const cases: Array<[unknown, Record<string, string>]> = [
      [{ attestation_name: 'x' }, { is_compliant: 'is required' }],
      [{ attestation_name: 'x', is_compliant: 'yes' }, { is_compliant: 'must be boolean' }],
      [{ attestation_name: 'x', is_compliant: true, junit_results: [] }, { junit_results: 'is not allowed' }],
      [{ attestation_name: 'a b', is_compliant: true }, { attestation_name: 'must match pattern "^[a-zA-Z0-9\\-_,]+$"' }],
      [{ attestation_name: 'x', is_compliant: true, artifact_fingerprint: 'abc' }, { artifact_fingerprint: 'must match pattern "^[a-f0-9]{64}$"' }],
    ];
    for (const [data, errors] of cases) {
      const res = await attest(data);
      expect(res.status, JSON.stringify(data)).to.equal(400);
      expect(res.body.message).to.be.a('string');
      expect(Object.keys(res.body.errors), JSON.stringify(res.body)).to.deep.equal(Object.keys(errors));
    }
    expect(await stored()).to.have.length(0);
  });

  it('begins a trail that was not begun on first use; answers 403 to a read-only token or another organisation', async () => {
    const data = { attestation_name: 'x', is_compliant: true };
    const first = await attest(data, {}, { to: path('nope') });
    expect(first.status).to.equal(201);
    expect((await server.attestations('backend', 'nope')).map((a) => a.name)).to.deep.equal(['x']);
    expect((await attest(data, {}, { token: server.readToken })).status).to.equal(403);
    expect((await attest(data, {}, { token: server.otherToken })).status).to.equal(403);
    expect(await stored()).to.have.length(0);
  });
});
