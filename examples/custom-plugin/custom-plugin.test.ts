import { expect } from 'chai';
import { createRouter, defaultPlugins, DuplicateOperationError } from '@trailproof/server';
import { openTestStore, startTestServer, type TestServer } from '@trailproof/server/testing';
import { attestGeneric, attestGenericPlugin } from './custom-plugin.ts';

describe('example: a third-party plugin adds an operation', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer({ plugins: [...defaultPlugins, attestGenericPlugin] })));
  after(() => server.close());

  it('serves the new operation next to the default ones and stores through the public store', async () => {
    expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 'b1' }) } })).status).to.equal(201);
    const res = await server.request('POST', '/api/v2/attestations/acme/app/trail/b1/generic', {
      form: { data_json: JSON.stringify({ attestation_name: 'security-scan', is_compliant: false }), attachment_file: { content: 'scan log', name: 'scan.txt' } },
    });
    expect(res.status).to.equal(201);
    const org = (await server.store.findOrganization('acme'))!;
    const trail = (await server.store.findTrail(Number(org.id), 'app', 'b1'))!;
    const [attestation] = await server.store.listAttestations(trail.id);
    expect(attestation).to.include({ name: 'security-scan', type: 'generic', compliant: false, attachmentSize: 8 });
  });

  it('gets validation, auth and the error shape from the framework', async () => {
    const invalid = await server.request('POST', '/api/v2/attestations/acme/app/trail/b1/generic', {
      form: { data_json: JSON.stringify({ attestation_name: 'x' }) },
    });
    expect(invalid.status).to.equal(400);
    expect(invalid.body.errors).to.deep.equal({ is_compliant: 'is required' });
    const otherOrg = await server.request('POST', '/api/v2/attestations/acme/app/trail/b1/generic', {
      token: server.otherToken, form: { data_json: JSON.stringify({ attestation_name: 'x', is_compliant: true }) },
    });
    expect(otherOrg.status).to.equal(403);
    const missingTrail = await server.request('POST', '/api/v2/attestations/acme/app/trail/nope/generic', {
      form: { data_json: JSON.stringify({ attestation_name: 'x', is_compliant: true }) },
    });
    expect(missingTrail.status).to.equal(404);
  });

  it('appears in the generated OpenAPI document', async () => {
    const doc = (await server.request('GET', '/api/v2/openapi.json', { token: null })).body;
    expect(doc.paths['/attestations/{org}/{flow_name}/trail/{trail_name}/generic'].post.operationId).to.equal(attestGeneric.id);
    expect(doc.components.schemas).to.have.property('GenericAttestationInput');
  });

  it('is refused at start-up when registered twice', async () => {
    const { store, cleanup } = await openTestStore();
    try {
      expect(() => createRouter({ store, plugins: [...defaultPlugins, attestGenericPlugin, attestGenericPlugin] })).to.throw(DuplicateOperationError);
    } finally {
      await store.close();
      cleanup();
    }
  });
});
