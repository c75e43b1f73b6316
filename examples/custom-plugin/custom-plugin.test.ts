// @database
import { expect } from 'chai';
import { createRouter, defaultPlugins, DuplicateOperationError } from '@trailproof/server';
import { openTestStore, startTestServer, type TestServer } from '@trailproof/server/testing';
import { attestCoverage, attestCoveragePlugin } from './custom-plugin.ts';

const coverage = (trail: string) => `/api/v2/attestations/acme/app/trail/${trail}/coverage`;

describe('example: a third-party plugin adds an attestation type', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ plugins: [...defaultPlugins, attestCoveragePlugin] });
    const template = 'version: 1\ntrail:\n  attestations:\n  - name: coverage\n    type: custom:coverage\n';
    const flow = await server.request('PUT', '/api/v2/flows/acme/template_file', {
      form: { data_json: JSON.stringify({ name: 'app' }), template_file: { content: template } },
    });
    expect(flow.status).to.equal(201);
    for (const name of ['b1', 'b2'])
      expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name }) } })).status).to.equal(201);
  });
  after(() => server.close());

  it('serves the new operation next to the default ones and stores through the public store', async () => {
    const res = await server.request('POST', coverage('b1'), {
      form: {
        data_json: JSON.stringify({ attestation_name: 'coverage', line_coverage: 71.5, minimum: 80 }),
        attachment_file: { content: 'lcov', name: 'lcov.info' },
      },
    });
    expect(res.status).to.equal(201);
    const [attestation] = await server.attestations('app', 'b1');
    expect(attestation).to.include({ name: 'coverage', type: 'custom:coverage', compliant: false, attachmentSize: 4 });
  });

  it('decides compliance with the core: a template can require the custom type', async () => {
    const state = async (trail: string) => (await server.request('GET', `/api/v2/trails/acme/app/${trail}`)).body.compliance_state;
    expect(await state('b2')).to.equal('NON-COMPLIANT');
    const res = await server.request('POST', coverage('b2'), {
      form: { data_json: JSON.stringify({ attestation_name: 'coverage', line_coverage: 92, minimum: 80 }) },
    });
    expect(res.status).to.equal(201);
    expect(await state('b2')).to.equal('COMPLIANT');
    expect(await state('b1')).to.equal('NON-COMPLIANT');
  });

  it('gets validation, auth and the error shape from the framework', async () => {
    const invalid = await server.request('POST', coverage('b1'), {
      form: { data_json: JSON.stringify({ attestation_name: 'x', line_coverage: 101 }) },
    });
    expect(invalid.status).to.equal(400);
    expect(Object.keys(invalid.body.errors).sort()).to.deep.equal(['line_coverage', 'minimum']);
    const otherOrg = await server.request('POST', coverage('b1'), {
      token: server.otherToken,
      form: { data_json: JSON.stringify({ attestation_name: 'x', line_coverage: 90, minimum: 80 }) },
    });
    expect(otherOrg.status).to.equal(403);
    // A trail not yet begun is made on first use, as Kosli does ("attesting without a template").
    const firstUse = await server.request('POST', coverage('nope'), {
      form: { data_json: JSON.stringify({ attestation_name: 'x', line_coverage: 90, minimum: 80 }) },
    });
    expect(firstUse.status).to.equal(201);
  });

  it('appears in the generated OpenAPI document', async () => {
    const doc = (await server.request('GET', '/api/v2/openapi.json', { token: null })).body;
    expect(doc.paths['/attestations/{org}/{flow_name}/trail/{trail_name}/coverage'].post.operationId).to.equal(attestCoverage.id);
    expect(doc.components.schemas).to.have.property('CoverageAttestationInput');
  });

  it('is refused at start-up when registered twice', async () => {
    const { store, cleanup } = await openTestStore();
    try {
      expect(() => createRouter({ store, plugins: [...defaultPlugins, attestCoveragePlugin, attestCoveragePlugin] })).to.throw(DuplicateOperationError);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
