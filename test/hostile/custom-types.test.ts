// @database
/**
 * Hostile custom attestation types and data (issue 50, point 2): jq rules that never end or eat
 * memory, programs of a megabyte, schemas whose regular expressions backtrack without end, data
 * nested or sized to break parsers. Each gets a clear 400 or a non-compliant verdict that says
 * which bound it hit, within seconds, while health keeps answering within 1 s.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { whileProbingHealth } from './health-probe.ts';

describe('hostile clients: custom attestation types, jq rules and JSON Schemas', function () {
  // A rule past its bound costs the bound twice (all rules at once, then one at a time) and a new thread.
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    const begun = await server.request('PUT', '/api/v2/trails/acme/hostile', { form: { data_json: JSON.stringify({ name: 'build-1' }) } });
    expect(begun.status).to.equal(201);
  });
  after(() => server.close());

  const createType = (definition: Record<string, unknown>, schema?: string) =>
    server.request('POST', '/api/v2/custom-attestation-types/acme', {
      form: { data_json: JSON.stringify(definition), ...(schema === undefined ? {} : { type_schema: { content: schema, name: 'schema.json' } }) },
    });
  const attest = (type: string, data: unknown, name = 'check') =>
    server.request('POST', '/api/v2/attestations/acme/hostile/trail/build-1/custom', {
      form: { data_json: JSON.stringify({ attestation_name: name, type_name: type, attestation_data: data }) },
    });
  const latest = async (name: string) => (await server.attestations('hostile', 'build-1')).filter((a) => a.name === name).at(-1)!;
  const rulesOf = async (name: string) =>
    ((await latest(name)).data as { evaluation: { rules: Array<{ passed: boolean; error: string | null }> } }).evaluation.rules;

  it('a rule that never ends: non-compliant, the rule named as past its time bound, the rules before it judged, health answering', async () => {
    expect((await createType({ name: 'forever', evaluator: { content_type: 'jq', rules: ['.ok', 'def f: f; f', '.ok'] } })).status).to.equal(201);
    const { result, slowestMs } = await whileProbingHealth(server, () => attest('forever', { ok: true }, 'forever'));
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status, JSON.stringify(result.body)).to.equal(201);
    expect((await latest('forever')).compliant).to.equal(false);
    expect(await rulesOf('forever')).to.deep.equal([
      { rule: '.ok', passed: true, output: 'true', error: null },
      { rule: 'def f: f; f', passed: false, output: null, error: 'the rule did not finish within 2 s' },
      { rule: '.ok', passed: false, output: null, error: 'not run: an earlier rule reached a bound' },
    ]);
    // The thread that judged it was replaced: the next attestation is judged as usual.
    expect((await createType({ name: 'plain', evaluator: { content_type: 'jq', rules: ['.ok'] } })).status).to.equal(201);
    expect((await attest('plain', { ok: true }, 'plain')).status).to.equal(201);
    expect((await latest('plain')).compliant).to.equal(true);
  });

  it('a rule that fills memory: non-compliant with the bound it hit, health answering', async () => {
    expect((await createType({ name: 'greedy', evaluator: { content_type: 'jq', rules: ['[range(1e9) | tostring * 100] | length > 0'] } })).status).to.equal(
      201,
    );
    const { result, slowestMs } = await whileProbingHealth(server, () => attest('greedy', {}, 'greedy'));
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status).to.equal(201);
    const [rule] = await rulesOf('greedy');
    expect(rule!.passed).to.equal(false);
    expect(rule!.error).to.match(/memory bound|did not finish within 2 s/);
  });

  it('a rule in the JavaScript subset that doubles its values thirty times: its step budget hands it to jq, which hits its bound; health answering', async () => {
    // In the subset (jq-subset.ts): 2^30 values if nothing bounded it; the subset stops at its step budget and jq takes it.
    const rule = `[${'(., .) | '.repeat(30)}.] | length > 0`;
    expect((await createType({ name: 'doubling', evaluator: { content_type: 'jq', rules: ['.ok', rule] } })).status).to.equal(201);
    const document = { ok: true, findings: Array.from({ length: 1000 }, (_, i) => ({ id: `CVE-${i}`, note: 'x'.repeat(40) })) };
    const { result, slowestMs } = await whileProbingHealth(server, () => attest('doubling', document, 'doubling'));
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status).to.equal(201);
    const [ok, doubling] = await rulesOf('doubling');
    expect(ok).to.deep.include({ passed: true, error: null });
    expect(doubling!.passed).to.equal(false);
    expect(doubling!.error).to.match(/memory bound|did not finish within 2 s/);
  });

  it('a program of a megabyte: refused with a 4xx that names the bound, health answering; 50 rules of 4,096 characters compile in bounds', async () => {
    const huge = `.a == ${'1 + '.repeat(256 * 1024)}1`;
    const { result, slowestMs } = await whileProbingHealth(server, () => createType({ name: 'huge', evaluator: { content_type: 'jq', rules: [huge] } }));
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status).to.be.oneOf([400, 413]);
    expect(JSON.stringify(result.body)).to.match(/4096|too large/);
    const long = `.a == ${'1 + '.repeat(1020)}1`.slice(0, 4096);
    const many = Array.from({ length: 50 }, () => long.replace(/ \+ $/, '').replace(/\+$/, ''));
    const probed = await whileProbingHealth(server, () => createType({ name: 'many', evaluator: { content_type: 'jq', rules: many } }));
    expect(probed.slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(probed.result.status, JSON.stringify(probed.result.body)).to.equal(201);
  });

  it('a schema whose pattern backtracks without end: the data is judged non-compliant within the bound, health answering', async () => {
    const schema = JSON.stringify({ type: 'object', properties: { id: { type: 'string', pattern: '^(a+)+$' } } });
    expect((await createType({ name: 'backtrack' }, schema)).status).to.equal(201);
    const { result, slowestMs } = await whileProbingHealth(server, () => attest('backtrack', { id: `${'a'.repeat(40)}!` }, 'backtrack'));
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status).to.equal(201);
    const stored = await latest('backtrack');
    expect(stored.compliant).to.equal(false);
    expect((stored.data as { evaluation: { schema_errors: string[] } }).evaluation.schema_errors.join()).to.contain('did not finish within 2 s');
  });

  it('a schema nested 10,000 deep and data nested 10,000 deep: 400s naming the nesting bounds, nothing stored', async () => {
    const deepSchema = `${'{"items":'.repeat(10_000)}{}${'}'.repeat(10_000)}`;
    const schemaAnswer = await createType({ name: 'deep' }, deepSchema);
    expect(schemaAnswer.status).to.equal(400);
    expect(schemaAnswer.body.message).to.contain('nests deeper than 64 levels');
    expect((await createType({ name: 'plain', evaluator: { content_type: 'jq', rules: ['.ok'] } })).status).to.be.oneOf([200, 201]);
    const before = (await server.attestations('hostile', 'build-1')).length;
    // Written as text: JSON.stringify itself runs out of stack on it.
    const deepData = `{"attestation_name":"deep","type_name":"plain","attestation_data":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const { result, slowestMs } = await whileProbingHealth(server, () =>
      server.request('POST', '/api/v2/attestations/acme/hostile/trail/build-1/custom', { form: { data_json: deepData } }),
    );
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status, JSON.stringify(result.body)).to.equal(400);
    // data_json's own bound on nesting refuses it before anything looks into it.
    expect(result.body.errors.data_json).to.match(/may nest at most \d+ levels/);
    expect((await server.attestations('hostile', 'build-1')).length).to.equal(before);
  });

  it('data of 900 KB judged by rules: a 400 naming the size bound; the same data for a type without rules is stored (201)', async () => {
    expect((await createType({ name: 'plain', evaluator: { content_type: 'jq', rules: ['.ok'] } })).status).to.be.oneOf([200, 201]);
    const big = { blob: 'x'.repeat(900 * 1024) };
    const refused = await attest('plain', big, 'big');
    expect(refused.status).to.equal(400);
    expect(refused.body.message).to.contain('at most 640 KiB');
    expect((await createType({ name: 'free' })).status).to.equal(201);
    expect((await attest('free', big, 'big')).status).to.equal(201);
    expect((await latest('big')).compliant).to.equal(true);
  });
});
