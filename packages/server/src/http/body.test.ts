// @database
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';

describe('multipart bodies', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  it('keeps UTF-8 file names as sent (RFC 7578), not decoded as Latin-1', async () => {
    expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 't1' }) } })).status).to.equal(201);
    const name = 'résultats-测试-✓.xml';
    const res = await server.request('POST', '/api/v2/attestations/acme/app/trail/t1/junit', {
      form: { data_json: JSON.stringify({ attestation_name: 'unit', junit_results: [] }), attachment_file: { content: '<testsuites/>', name } },
    });
    expect(res.status).to.equal(201);
    const [attestation] = await server.attestations('app', 't1');
    expect(attestation!.attachmentName).to.equal(name);
  });

  it('refuses a JSON data_json nested deeper than 32 levels', async () => {
    const deep = JSON.stringify({ name: 't2', user_data: { a: JSON.parse('['.repeat(40) + ']'.repeat(40)) } });
    const res = await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: deep } });
    expect(res.status).to.equal(400);
    expect(res.body.errors).to.have.key('data_json');
    expect(res.body.message).to.match(/nests too deeply/);
  });

  it('accepts data_json nested 32 levels deep and refuses 33, in arrays and in objects', async () => {
    // The trail input is the first level; user_data's value adds the rest.
    const arrays = (levels: number) => JSON.parse('['.repeat(levels) + '1' + ']'.repeat(levels)) as unknown;
    const objects = (levels: number): unknown => (levels === 0 ? 1 : { a: objects(levels - 1) });
    for (const [kind, nest] of [
      ['arrays', arrays],
      ['objects', objects],
    ] as const) {
      const begin = (name: string, levels: number) =>
        server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name, user_data: nest(levels - 1) }) } });
      expect((await begin(`deep-${kind}`, 32)).status, `${kind}: 32 levels`).to.equal(201);
      const refused = await begin(`deeper-${kind}`, 33);
      expect(refused.status, `${kind}: 33 levels`).to.equal(400);
      expect(refused.body.errors).to.deep.equal({ data_json: 'may nest at most 32 levels' });
    }
  });
});
