// @database
/** Robustness: the inputs the request generators found accepted where they should not be, each now refused or kept by decision. */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';

/**
 * Inputs the generators (robustness.test.ts, robustness-contract.test.ts) found accepted where they
 * should not be, each now fixed or decided (docs/decisions.md). Invalid UTF-8 in a `data_json` form
 * field is still replaced by U+FFFD by busboy before the server sees it (see decisions.md); sent
 * as a file part it is a 400.
 */
describe('robustness: found by the generators', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  it('refuses a NUL in a query value with a 400 naming it, on both backends', async () => {
    for (const [path, query, field] of [
      ['/deployments/acme', 'env_name=a%00b', 'query.env_name'],
      ['/deployments/acme', 'repo_name=%00', 'query.repo_name'],
      ['/environments/acme', 'name=x%00', 'query.name'],
      ['/environments/acme', 'tag=team&tag=a%00', 'query.tag.1'],
    ] as const) {
      const res = await server.request('GET', `/api/v2${path}?${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.body.errors, query).to.have.property(field);
    }
  });

  // Decided in docs/decisions.md: unknown keys inside git_commit_info and repo_info are kept (the
  // reference's models ignore extras and the real CLI adds fields), bounded to 32 keys.
  it('keeps unknown keys inside git_commit_info and repo_info, up to 32 of them', async () => {
    const data = { name: 't-open', git_commit_info: { sha1: 'abc', surprise: { any: 'json' } }, repo_info: { name: 'r', url: 'u', extra: 1 } };
    const res = await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify(data) } });
    expect(res.status).to.equal(201);
    const trail = await server.request('GET', '/api/v2/trails/acme/app/t-open');
    expect(trail.body.git_commit_info).to.deep.include({ surprise: { any: 'json' } });
    const many = { name: 't-many', git_commit_info: { sha1: 'abc', ...Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, i])) } };
    const refused = await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify(many) } });
    expect(refused.status).to.equal(400);
    expect(Object.keys(refused.body.errors).join()).to.contain('git_commit_info');
  });
});
