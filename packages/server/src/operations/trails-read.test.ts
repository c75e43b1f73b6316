// @database
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { downloadAttachment, getTrail, listTrails } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';

const commit = { sha1: '0123456789abcdef0123456789abcdef01234567', message: 'Add login', author: 'Ada', branch: 'main', timestamp: 1_763_800_000 };
const repo = { name: 'acme/app', url: 'https://git.example.com/acme/app', id: '7' };
const suite = (name: string, failures = 0, errors = 0) => ({ name, failures, errors, skipped: 1, total: 10, duration: 1.25, timestamp: 1_763_800_100 });
const flowTemplate = 'version: 1\ntrail:\n  attestations:\n  - name: unit-tests\n    type: junit\n  - name: e2e\n    type: junit\n';

describe('reading trails: GET /trails/{org}/{flow_name}[/{trail_name}] and attachment download', () => {
  let server: TestServer;
  beforeEach(async () => (server = await startTestServer()));
  afterEach(() => server.close());

  const begin = (name: string, extra: Record<string, { content: string }> = {}) =>
    server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name, git_commit_info: commit, repo_info: repo }), ...extra } });
  const attest = async (trail: string, data: Record<string, unknown>, attachment?: Uint8Array) => {
    const res = await server.request('POST', `/api/v2/attestations/acme/app/trail/${trail}/junit`, {
      form: { data_json: JSON.stringify(data), ...(attachment ? { attachment_file: { content: attachment, name: 'unit report.xml' } } : {}) },
    });
    expect(res.status).to.equal(201);
  };
  const get = (trail: string) => server.request('GET', `/api/v2/trails/acme/app/${trail}`);

  it('answers the trail with git and repo info, every attestation with totals and attachment, and compliance reasons', async () => {
    await server.request('PUT', '/api/v2/flows/acme/template_file', {
      form: { data_json: JSON.stringify({ name: 'app' }), template_file: { content: flowTemplate } },
    });
    expect((await begin('build-1')).status).to.equal(201);
    const xml = new TextEncoder().encode('<testsuites>\u0000 bytes as uploaded </testsuites>');
    await attest('build-1', { attestation_name: 'unit-tests', junit_results: [suite('api', 1), suite('web')], target_artifacts: ['app'] }, xml);

    const first = await get('build-1');
    expect(first.status).to.equal(200);
    assertMatchesContract(getTrail, 200, first.body);
    expect(first.body).to.deep.include({ name: 'build-1', git_commit_info: commit, repo_info: repo, compliance_state: 'NON-COMPLIANT', is_compliant: false });
    expect(first.body.flow).to.deep.equal({ name: 'app' });
    expect(first.body._links.self.href).to.equal('/api/v2/trails/acme/app/build-1');
    expect(first.body.template.trail.attestations.map((a: { name: string }) => a.name)).to.deep.equal(['unit-tests', 'e2e']);
    expect(first.body.compliance_status.reasons).to.deep.equal([
      "required attestation 'unit-tests' (junit) is missing",
      "required attestation 'e2e' (junit) is missing",
      "artifact 'app': attestation 'unit-tests' (not in the template) is not compliant",
    ]);
    const [stored] = first.body.attestations;
    expect(stored).to.deep.include({
      attestation_name: 'unit-tests',
      attestation_type: 'junit',
      is_compliant: false,
      is_latest: true,
      target_artifacts: ['app'],
    });
    expect(stored.junit_results).to.deep.equal([suite('api', 1), suite('web')]);
    expect(stored.totals).to.deep.equal({ suites: 2, total: 20, failures: 1, errors: 0, skipped: 2, duration: 2.5 });
    const sha256 = createHash('sha256').update(xml).digest('hex');
    expect(stored.attachment).to.deep.equal({
      name: 'unit report.xml',
      sha256,
      size: xml.byteLength,
      _links: { download: { href: `/api/v2/trails/acme/app/build-1/attestations/${stored.attestation_id}/attachment` } },
    });

    const download = await server.request('GET', stored.attachment._links.download.href);
    expect(download.status).to.equal(200);
    expect(Buffer.from(download.bytes).equals(Buffer.from(xml))).to.equal(true);
    expect(download.headers.get('x-content-sha256')).to.equal(sha256);
    expect(download.headers.get('repr-digest')).to.equal(`sha-256=:${Buffer.from(sha256, 'hex').toString('base64')}:`);
    expect(download.headers.get('content-type')).to.equal('application/octet-stream');
    expect(download.headers.get('content-disposition')).to.equal(`attachment; filename="unit report.xml"; filename*=UTF-8''unit%20report.xml`);

    // Trail-level attestations fix it; the earlier failing one stays stored and readable, but no longer counts.
    await attest('build-1', { attestation_name: 'unit-tests', junit_results: [suite('api')] });
    await attest('build-1', { attestation_name: 'e2e', junit_results: [suite('browser')] });
    await attest('build-1', { attestation_name: 'unit-tests', junit_results: [suite('api')], target_artifacts: ['app'] });
    const fixed = (await get('build-1')).body;
    assertMatchesContract(getTrail, 200, fixed);
    expect(fixed).to.deep.include({ compliance_state: 'COMPLIANT', is_compliant: true });
    expect(fixed.compliance_status.reasons).to.deep.equal([]);
    expect(fixed.attestations.map((a: { is_latest: boolean; is_compliant: boolean }) => [a.is_latest, a.is_compliant])).to.deep.equal([
      [false, false],
      [true, true],
      [true, true],
      [true, true],
    ]);
    expect(fixed.attestations[0].attachment.sha256).to.equal(sha256);
    expect(fixed.compliance_status.artifacts_statuses.app.attestations_statuses[0].attestation_id).to.equal(fixed.attestations[3].attestation_id);
  });

  it("uses the trail's own template instead of its flow's", async () => {
    await server.request('PUT', '/api/v2/flows/acme/template_file', {
      form: { data_json: JSON.stringify({ name: 'app' }), template_file: { content: flowTemplate } },
    });
    await begin('own', { template_file: { content: 'version: 1\ntrail:\n  attestations:\n  - name: smoke\n    type: generic\n' } });
    const trail = (await get('own')).body;
    expect(trail.compliance_status.reasons).to.deep.equal(["required attestation 'smoke' (generic) is missing"]);
    expect(trail.template.trail.attestations).to.deep.equal([{ name: 'smoke', type: 'generic' }]);
  });

  it('without a template, the attestations made decide; with none the trail is compliant', async () => {
    await begin('plain');
    const empty = (await get('plain')).body;
    expect(empty).to.deep.include({ template: null, compliance_state: 'COMPLIANT', attestations: [] });
    await attest('plain', { attestation_name: 'unit', junit_results: [suite('a', 0, 2)] });
    expect((await get('plain')).body.compliance_status.reasons).to.deep.equal(["attestation 'unit' is not compliant"]);
  });

  it('lists trails newest first with compliance, paginated', async () => {
    for (const name of ['b-1', 'b-2', 'b-3']) await begin(name);
    await attest('b-2', { attestation_name: 'unit', junit_results: [suite('a', 1)] });
    const page1 = await server.request('GET', '/api/v2/trails/acme/app?per_page=2');
    expect(page1.status).to.equal(200);
    assertMatchesContract(listTrails, 200, page1.body);
    expect(page1.body.data.map((t: { name: string }) => t.name)).to.deep.equal(['b-3', 'b-2']);
    expect(page1.body.data.map((t: { is_compliant: boolean }) => t.is_compliant)).to.deep.equal([true, false]);
    expect(page1.body.data[0]).to.not.have.property('attestations');
    expect(page1.body.pagination).to.deep.equal({ total: 3, page: 1, per_page: 2, page_count: 2 });
    expect(page1.body._links.next).to.deep.equal({ href: '/api/v2/trails/acme/app?per_page=2&page=2' });
    const page2 = await server.request('GET', page1.body._links.next.href);
    expect(page2.body.data.map((t: { name: string }) => t.name)).to.deep.equal(['b-1']);
    expect((await server.request('GET', '/api/v2/trails/acme/app?per_page=0')).status).to.equal(400);
  });

  it('answers 404 for unknown flows, trails, attestations and attachments, and 403 for other organisations', async () => {
    await begin('build-1');
    await attest('build-1', { attestation_name: 'unit', junit_results: [] });
    const id = (await get('build-1')).body.attestations[0].attestation_id;
    expect((await server.request('GET', '/api/v2/trails/acme/nope')).status).to.equal(404);
    expect((await get('nope')).status).to.equal(404);
    const noFile = await server.request('GET', `/api/v2/trails/acme/app/build-1/attestations/${id}/attachment`);
    expect(noFile.status).to.equal(404);
    assertMatchesContract(downloadAttachment, 404, noFile.body);
    expect((await server.request('GET', `/api/v2/trails/acme/app/build-1/attestations/${Number(id) + 1}/attachment`)).status).to.equal(404);
    // Another trail's attestation, with an attachment, is not found through this trail.
    await begin('build-2');
    await attest('build-2', { attestation_name: 'unit', junit_results: [] }, new Uint8Array([1, 2, 3]));
    const other = (await get('build-2')).body.attestations[0];
    expect((await server.request('GET', other.attachment._links.download.href)).status).to.equal(200);
    expect((await server.request('GET', `/api/v2/trails/acme/app/build-1/attestations/${other.attestation_id}/attachment`)).status).to.equal(404);
    expect((await server.request('GET', '/api/v2/trails/acme/app/build-1/attestations/x/attachment')).status).to.equal(400);
    expect((await server.request('GET', '/api/v2/trails/acme/app/build-1', { token: server.otherToken })).status).to.equal(403);
    expect((await server.request('GET', '/api/v2/trails/acme/app/build-1', { token: server.readToken })).status).to.equal(200);
  });
});
