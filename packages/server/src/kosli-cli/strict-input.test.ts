// @database
/**
 * Input read strictly, and refusals that name what was refused (issue 30 item 11, issue 31
 * findings 4 and 6): unknown fields named `__proto__` or `constructor`, numbers in paths, unknown
 * query keys, a tag filter without a key, and the refused value in the message.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';

describe('strict input: unknown keys, numbers in paths, and refusals that name the value', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    const begun = await server.request('PUT', '/api/v2/trails/acme/shop', { form: { data_json: JSON.stringify({ name: 'build-1' }) } });
    expect(begun.status).to.equal(201);
  });
  after(() => server.close());

  const putEnvironment = (raw: string) => server.request('PUT', '/api/v2/environments/acme', { body: raw, headers: { 'content-type': 'application/json' } });

  it('an unknown field named __proto__ or constructor is a 400 that names it, in a JSON body and in data_json', async () => {
    for (const field of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const res = await putEnvironment(`{"name":"e1","type":"K8S","${field}":{"polluted":true}}`);
      expect(res.status, field).to.equal(400);
      expect(res.body.errors, field).to.deep.equal({ [field]: 'is not a known field' });
      const begun = await server.request('PUT', '/api/v2/trails/acme/shop', { form: { data_json: `{"name":"build-2","${field}":1}` } });
      expect(begun.status, field).to.equal(400);
      expect(Object.keys(begun.body.errors), field).to.deep.equal([field]);
    }
    // Nothing was polluted and nothing stored.
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect((await server.request('GET', '/api/v2/environments/acme/e1')).status).to.equal(404);
  });

  it('numbers in paths are plain decimal digits: " 1", "1e3", "+1", "0x1", "1.0" and "6.2e1" are a 400 naming the parameter', async () => {
    await server
      .request('POST', '/api/v2/approvals/acme/shop', {
        json: { artifact_fingerprint: 'a'.repeat(64), description: '', src_commit_list: [] },
      })
      .then((res) => expect(res.status, JSON.stringify(res.body)).to.equal(201));
    expect((await server.request('GET', '/api/v2/approvals/acme/shop/1')).status).to.equal(200);
    expect((await server.request('GET', '/api/v2/approvals/acme/shop/-1')).status).to.equal(200);
    for (const number of ['%201', '1e0', '1e3', '%2B1', '0x1', '1.0', '1%20']) {
      const res = await server.request('GET', `/api/v2/approvals/acme/shop/${number}`);
      expect(res.status, number).to.equal(400);
      expect(res.body.errors, number).to.have.property('path.approval_number');
    }
    for (const id of ['6.2e1', '1e0', '%201']) {
      const res = await server.request('GET', `/api/v2/trails/acme/shop/build-1/attestations/${id}/attachment`);
      expect(res.status, id).to.equal(400);
      expect(res.body.errors, id).to.have.property('path.attestation_id');
    }
    // Query integers too.
    const paged = await server.request('GET', '/api/v2/deployments/acme?page=1e0');
    expect(paged.status).to.equal(400);
    expect(paged.body.errors).to.have.property('query.page');
  });

  it('an unknown query key is a 400 naming it, instead of a silently unfiltered list', async () => {
    const res = await server.request('GET', '/api/v2/deployments/acme?env_nme=prod');
    expect(res.status).to.equal(400);
    expect(res.body.errors).to.deep.equal({ 'query.env_nme': 'is not a known query parameter' });
    const both = await server.request('GET', '/api/v2/environments/acme?per_page=0&nmae=x');
    expect(both.status).to.equal(400);
    expect(both.body.errors).to.have.keys('query.per_page', 'query.nmae');
    const proto = await server.request('GET', '/api/v2/environments/acme?__proto__=x&constructor=y');
    expect(proto.status).to.equal(400);
    expect(proto.body.errors).to.have.keys('query.__proto__', 'query.constructor');
    // The keys the Kosli CLI sends are known.
    expect((await server.request('GET', '/api/v2/deployments/acme?page=1&per_page=15')).status).to.equal(200);
    expect((await server.request('GET', '/api/v2/approvals/acme/shop?page=1&per_page=15')).status).to.equal(200);
    expect((await server.request('GET', '/api/v2/trails/acme/shop?page=1&per_page=20')).status).to.equal(200);
  });

  it('a tag filter with an empty key (`?tag=:::`, `?tag=:v`) is a 400 naming query.tag; key and key:value are accepted', async () => {
    for (const tag of [':::', ':v', '%3Av']) {
      const res = await server.request('GET', `/api/v2/environments/acme?tag=${tag}`);
      expect(res.status, tag).to.equal(400);
      expect(res.body.errors, tag).to.have.property('query.tag.0');
    }
    expect((await server.request('GET', '/api/v2/environments/acme?tag=team&tag=team:payments&tag=url:https://x')).status).to.equal(200);
  });

  it('a refused value is named in the message: an invalid trail name, an unknown repo provider', async () => {
    const bad = await server.request('PUT', '/api/v2/trails/acme/shop', { form: { data_json: JSON.stringify({ name: 'foo?$bar' }) } });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors.name).to.match(/^'foo\?\$bar' does not match /);
    const provider = await server.request('PUT', '/api/v2/trails/acme/shop', {
      form: { data_json: JSON.stringify({ name: 'build-3', repo_info: { name: 'shop', url: 'https://x', provider: 'made-up' } }) },
    });
    expect(provider.status).to.equal(400);
    expect(provider.body.errors['repo_info.provider']).to.match(/^'made-up' is not allowed: must be one of: github, gitlab, bitbucket, bitbucket_cloud, /);
  });
});
