// @database
/**
 * Hostile templates (issue 30, item 1): YAML that costs the parser more than a template ever
 * needs is refused before it is parsed, with a 400 naming the bound, while health keeps answering.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { whileProbingHealth } from './health-probe.ts';

/** `version: 1` then `count` one-line keys (the reproduction: 20,000 keys held the server 12 s). */
const manyKeys = (count: number, key = (i: number) => `k${i}`) => 'version: 1\n' + Array.from({ length: count }, (_, i) => `${key(i)}: 1\n`).join('');

describe('hostile clients: YAML templates', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  const putTemplate = (template: string) =>
    server.request('PUT', '/api/v2/flows/acme/template_file', {
      form: { data_json: JSON.stringify({ name: 'hostile' }), template_file: { content: template, name: 'template.yml' } },
    });
  const beginWithTemplate = (template: string) =>
    server.request('PUT', '/api/v2/trails/acme/hostile', {
      form: { data_json: JSON.stringify({ name: 'build-1' }), template_file: { content: template, name: 'template.yml' } },
    });

  it('20,000 keys (189 KB): a 400 naming the size bound, and health answers meanwhile', async () => {
    const { result, slowestMs } = await whileProbingHealth(server, () => putTemplate(manyKeys(20_000)));
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status).to.equal(400);
    expect(result.body.errors.template_file).to.match(/^a template may be at most 65536 bytes \(this one has 188\d{3}\)$/);
  });

  it('8,000 keys within the size bound: a 400 naming the bound on keys, and health answers meanwhile', async () => {
    const template = manyKeys(8_000, (i) => `k${i.toString(36)}`);
    expect(template.length).to.be.below(64 * 1024);
    const { result, slowestMs } = await whileProbingHealth(server, () => putTemplate(template));
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status).to.equal(400);
    expect(result.body.errors.template_file).to.equal('line 2001: a template may have at most 2000 keys and list entries');
  });

  it('begin trail with a template nested 30,000 levels: a 400 naming the bound on nesting, not a stack overflow', async () => {
    const { result, slowestMs } = await whileProbingHealth(server, () => beginWithTemplate('['.repeat(30_000) + ']'.repeat(30_000)));
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status).to.equal(400);
    expect(result.body.message).to.equal('Invalid template: line 1: a template may nest at most 16 levels');
    expect(result.body.errors).to.deep.equal({ template_file: 'line 1: a template may nest at most 16 levels' });
  });

  it('nothing hostile was stored, and a real template is still accepted', async () => {
    expect((await server.request('GET', '/api/v2/flows/acme/hostile')).status).to.equal(404);
    const created = await putTemplate('version: 1\ntrail:\n  attestations:\n  - name: unit-tests\n    type: junit\n');
    expect(created.status).to.equal(201);
  });
});
