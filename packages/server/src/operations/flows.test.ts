// @database
import { expect } from 'chai';
import { getFlow, listFlows, putFlow, putFlowTemplate } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';

const template =
  'version: 1\ntrail:\n  attestations:\n  - name: unit-tests\n    type: junit\n  artifacts:\n  - name: backend\n    attestations:\n    - name: scan\n      type: snyk\n';

describe('flows: PUT /flows/{org}, PUT /flows/{org}/template_file, GET /flows/{org}[/{flow_name}]', () => {
  let server: TestServer;
  beforeEach(async () => (server = await startTestServer()));
  afterEach(() => server.close());

  const putWithTemplate = (data: unknown, file?: string, token?: string) =>
    server.request('PUT', '/api/v2/flows/acme/template_file', {
      form: { data_json: JSON.stringify(data), ...(file === undefined ? {} : { template_file: { content: file, name: 'template.yml' } }) },
      token,
    });

  it('creates a flow with a YAML template (201), updates it (200), and reads it back with the template', async () => {
    const created = await putWithTemplate({ name: 'backend', description: 'The backend', visibility: 'public' }, template);
    expect(created.status).to.equal(201);
    assertMatchesContract(putFlowTemplate, 201, created.body);

    const flow = await server.request('GET', '/api/v2/flows/acme/backend');
    expect(flow.status).to.equal(200);
    assertMatchesContract(getFlow, 200, flow.body);
    expect(flow.body).to.deep.include({ org: 'acme', name: 'backend', description: 'The backend', visibility: 'public', repo_url: null });
    expect(flow.body.template).to.deep.equal({
      version: 1,
      trail: {
        attestations: [{ name: 'unit-tests', type: 'junit' }],
        artifacts: [{ name: 'backend', attestations: [{ name: 'scan', type: 'snyk' }] }],
      },
      content: template,
    });
    expect(flow.body.template_id).to.match(/^[a-f0-9]{64}$/);

    // Without a template file the flow keeps its template; the description changes.
    const updated = await putWithTemplate({ name: 'backend', description: 'Still the backend' });
    expect(updated.status).to.equal(200);
    assertMatchesContract(putFlowTemplate, 200, updated.body);
    const again = await server.request('GET', '/api/v2/flows/acme/backend');
    expect(again.body).to.deep.include({ description: 'Still the backend', visibility: 'public', template_id: flow.body.template_id });
    expect(again.body.last_modified_at).to.be.at.least(flow.body.last_modified_at);
  });

  it('rejects a template that does not validate with 400 naming the problem and its line, and stores nothing', async () => {
    const bad = await putWithTemplate({ name: 'backend' }, 'version: 1\ntrail:\n  attestations:\n  - name: unit-tests\n    type: unit\n');
    expect(bad.status).to.equal(400);
    expect(bad.body.message).to.equal(
      "Invalid template: line 5: trail.attestations[0].type 'unit' is not a known type (*, generic, jira, junit, pull_request, snyk, sonar, decision, sbom, custom:<name>)",
    );
    expect(bad.body.errors).to.deep.equal({
      template_file:
        "line 5: trail.attestations[0].type 'unit' is not a known type (*, generic, jira, junit, pull_request, snyk, sonar, decision, sbom, custom:<name>)",
    });
    expect((await server.request('GET', '/api/v2/flows/acme/backend')).status).to.equal(404);

    const syntax = await putWithTemplate({ name: 'backend' }, 'version: 1\ntrail:\n  attestations:\n  - name: a\n   type: junit\n');
    expect(syntax.status).to.equal(400);
    expect(syntax.body.errors.template_file).to.match(/^line 5: /);
  });

  it('begin trail with a bad template_file is a 400 naming the line too', async () => {
    const res = await server.request('PUT', '/api/v2/trails/acme/backend', {
      form: { data_json: JSON.stringify({ name: 'build-1' }), template_file: { content: 'version: 1\ntrail:\n  artifact: []\n' } },
    });
    expect(res.status).to.equal(400);
    expect(res.body.errors).to.deep.equal({ template_file: "line 3: trail: unknown key 'artifact' (expected attestations, artifacts)" });
  });

  it('PUT /flows/{org} (JSON) turns the legacy list of names into a template of any-type attestations', async () => {
    const created = await server.request('PUT', '/api/v2/flows/acme', {
      json: {
        name: 'legacy',
        description: 'old style',
        visibility: 'private',
        template: ['artifact', 'unit-test', 'pull-request'],
        repo_url: 'https://git.example.com/acme/legacy',
      },
    });
    expect(created.status).to.equal(201);
    assertMatchesContract(putFlow, 201, created.body);
    const flow = (await server.request('GET', '/api/v2/flows/acme/legacy')).body;
    expect(flow.repo_url).to.equal('https://git.example.com/acme/legacy');
    expect(flow.template.trail).to.deep.equal({
      attestations: [
        { name: 'unit-test', type: '*' },
        { name: 'pull-request', type: '*' },
      ],
      artifacts: [],
    });
    expect(flow.template.content).to.match(/^version: 1\n/);

    const unchanged = await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'legacy', description: 'old style' } });
    expect(unchanged.status).to.equal(200);
    assertMatchesContract(putFlow, 200, unchanged.body);
    expect((await server.request('GET', '/api/v2/flows/acme/legacy')).body.template_id).to.equal(flow.template_id);

    await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'legacy', template: [] } });
    expect((await server.request('GET', '/api/v2/flows/acme/legacy')).body).to.deep.include({ template: null, template_id: null });
  });

  it('a flow created by begin trail can be given a template later (200)', async () => {
    await server.request('PUT', '/api/v2/trails/acme/implicit', { form: { data_json: JSON.stringify({ name: 'build-1' }) } });
    expect((await putWithTemplate({ name: 'implicit' }, template)).status).to.equal(200);
  });

  it('lists flows by name, filtered by a substring, case-sensitive unless asked otherwise', async () => {
    for (const name of ['web-App', 'backend', 'web-api']) {
      expect((await server.request('PUT', '/api/v2/flows/acme', { json: { name, description: '', visibility: 'private' } })).status).to.equal(201);
    }
    await server.request('PUT', '/api/v2/flows/globex', { json: { name: 'web-other' }, token: server.otherToken });
    const all = await server.request('GET', '/api/v2/flows/acme');
    expect(all.status).to.equal(200);
    assertMatchesContract(listFlows, 200, all.body);
    expect(all.body.map((f: { name: string }) => f.name)).to.deep.equal(['backend', 'web-App', 'web-api']);
    const sensitive = await server.request('GET', '/api/v2/flows/acme?search_by_name=web-a');
    expect(sensitive.body.map((f: { name: string }) => f.name)).to.deep.equal(['web-api']);
    const insensitive = await server.request('GET', '/api/v2/flows/acme?search_by_name=web-a&case_sensitive=false');
    expect(insensitive.body.map((f: { name: string }) => f.name)).to.deep.equal(['web-App', 'web-api']);
    const bad = await server.request('GET', '/api/v2/flows/acme?search_by_name=web%25');
    expect(bad.status).to.equal(400);
    expect(bad.body.errors).to.have.key('query.search_by_name');
  });

  it('pages the list: each page its own flows in name order, the count of every match in X-Total-Count, a page past the end empty', async () => {
    for (const name of ['svc-e', 'svc-a', 'other', 'svc-c', 'SVC-d', 'svc-b']) {
      expect((await server.request('PUT', '/api/v2/flows/acme', { json: { name } })).status).to.equal(201);
    }
    const page = async (query: string) => {
      const res = await server.request('GET', `/api/v2/flows/acme?${query}`);
      expect(res.status, query).to.equal(200);
      return { names: res.body.map((f: { name: string }) => f.name), total: res.headers.get('x-total-count') };
    };
    expect(await page('search_by_name=svc&per_page=2&page=1')).to.deep.equal({ names: ['svc-a', 'svc-b'], total: '4' });
    expect(await page('search_by_name=svc&per_page=2&page=2')).to.deep.equal({ names: ['svc-c', 'svc-e'], total: '4' });
    expect(await page('search_by_name=svc&per_page=2&page=3')).to.deep.equal({ names: [], total: '4' });
    const insensitive = await page('search_by_name=svc&case_sensitive=false&per_page=10&page=1');
    expect(insensitive.total).to.equal('5');
    expect([...insensitive.names].sort()).to.deep.equal(['SVC-d', 'svc-a', 'svc-b', 'svc-c', 'svc-e']);
  });

  it('validates input, needs a write token to write, and keeps other organisations out', async () => {
    const invalid = await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'x/y', visibility: 'secret', extra: 1 } });
    expect(invalid.status).to.equal(400);
    expect(invalid.body.errors).to.have.keys(['name', 'visibility', 'extra']);
    expect((await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'x' }, token: server.readToken })).status).to.equal(403);
    expect((await server.request('GET', '/api/v2/flows/acme', { token: server.otherToken })).status).to.equal(403);
    expect((await server.request('GET', '/api/v2/flows/acme', { token: null })).status).to.equal(401);
    expect(
      (await server.request('PUT', '/api/v2/flows/acme', { body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status,
    ).to.equal(415);
    const missing = await server.request('GET', '/api/v2/flows/acme/nope');
    expect(missing.status).to.equal(404);
    assertMatchesContract(getFlow, 404, missing.body);
  });
});
