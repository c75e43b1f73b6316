// @database
import { expect } from 'chai';
import { beginTrail } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';

const commit = {
  sha1: '0123456789abcdef0123456789abcdef01234567',
  message: 'Fix the thing',
  author: 'Ada <ada@example.com>',
  author_username: 'ada',
  branch: 'main',
  timestamp: 1_763_800_000.5,
  url: 'https://git.example.com/acme/app/commit/0123456',
  parents: ['89abcdef0123456789abcdef0123456789abcdef'],
};
const repo = { name: 'acme/app', url: 'https://git.example.com/acme/app', id: '42', description: 'The app' };

describe('begin trail: PUT /trails/{org}/{flow_name}', () => {
  let server: TestServer;
  beforeEach(async () => (server = await startTestServer()));
  afterEach(() => server.close());

  const begin = (data: unknown, extra: Record<string, { content: string; name?: string }> = {}, token?: string) =>
    server.request('PUT', '/api/v2/trails/acme/release', { form: { data_json: JSON.stringify(data), ...extra }, token });

  it('creates the flow and the trail (201) and stores what was sent', async () => {
    const res = await begin({
      name: 'build-1',
      description: 'first',
      git_commit_info: commit,
      repo_info: repo,
      origin_url: 'https://ci.example.com/1',
      user_data: { k: 1 },
    });
    expect(res.status).to.equal(201);
    assertMatchesContract(beginTrail, 201, res.body);
    const org = (await server.store.findOrganization('acme'))!;
    const trail = (await server.store.findTrail(Number(org.id), 'release', 'build-1'))!;
    expect(trail.description).to.equal('first');
    expect(trail.gitCommitInfo).to.deep.equal(commit);
    expect(trail.repoInfo).to.deep.equal(repo);
    expect(trail.originUrl).to.equal('https://ci.example.com/1');
    expect(trail.userData).to.deep.equal({ k: 1 });
  });

  it('begun again (a re-run job) updates the trail and answers 200', async () => {
    expect((await begin({ name: 'build-1', description: 'first' })).status).to.equal(201);
    const again = await begin({ name: 'build-1', description: 'second' });
    expect(again.status).to.equal(200);
    assertMatchesContract(beginTrail, 200, again.body);
    const org = (await server.store.findOrganization('acme'))!;
    expect((await server.store.findTrail(Number(org.id), 'release', 'build-1'))!.description).to.equal('second');
  });

  it('stores the template file content-addressed with the trail', async () => {
    const template = 'version: 1\ntrail:\n  attestations:\n    - name: unit\n      type: junit\n';
    expect((await begin({ name: 'build-2' }, { template_file: { content: template, name: 'template.yml' } })).status).to.equal(201);
    const org = (await server.store.findOrganization('acme'))!;
    const trail = (await server.store.findTrail(Number(org.id), 'release', 'build-2'))!;
    const blob = (await server.store.getBlob(trail.templateSha256!))!;
    expect(Buffer.from(blob.content).toString()).to.equal(template);
  });

  it('accepts data_json as a file part too', async () => {
    const res = await server.request('PUT', '/api/v2/trails/acme/release', {
      form: { data_json: { content: JSON.stringify({ name: 'as-file' }), name: 'data.json', type: 'application/json' } },
    });
    expect(res.status).to.equal(201);
  });

  it('rejects invalid input with 400 naming each field, and stores nothing', async () => {
    const res = await begin({ name: 'bad name/with slash', git_commit_info: { message: 'no sha' }, origin_url: 5 });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.be.a('string');
    expect(res.body.errors).to.have.keys(['name', 'git_commit_info.sha1', 'origin_url']);
    const org = (await server.store.findOrganization('acme'))!;
    expect(await server.store.findFlow(Number(org.id), 'release')).to.equal(undefined);
  });

  it('rejects a missing data_json, invalid JSON and a template over 10MB', async () => {
    const missing = await server.request('PUT', '/api/v2/trails/acme/release', { form: { other: 'x' } });
    expect(missing.status).to.equal(400);
    const broken = await server.request('PUT', '/api/v2/trails/acme/release', { form: { data_json: '{"name":' } });
    expect(broken.status).to.equal(400);
    expect(broken.body.errors).to.have.key('data_json');
    const big = await begin({ name: 'big' }, { template_file: { content: 'x'.repeat(10 * 1024 * 1024 + 1) } });
    expect(big.status).to.equal(413);
    expect(big.body.message).to.match(/too large/i);
  });
});
