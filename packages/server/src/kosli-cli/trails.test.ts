// @database
/**
 * The Kosli CLI's flow, trail and JUnit requests, byte for byte as it sends them, from every CI it
 * knows and a local run. Followed: cmd/kosli/createFlow.go (`--use-empty-template` writes
 * `version: 1` to template.yml; the legacy JSON flow), cmd/kosli/beginTrail.go (`TrailPayload`,
 * multipart with `data_json` and `template_file`, 201 "begun" / 200 "updated"),
 * cmd/kosli/attestJunit.go (`JunitAttestationPayload`, go-junit totals, the XML files as the
 * attachment: one file as it is, several as `evidence.tgz`, getPathOfEvidenceFileToUpload in
 * cmd/kosli/attestation.go), internal/requests/requests.go (headers, success = 200 or 201).
 */
import { createHash } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { createGzip } from 'node:zlib';
import { expect } from 'chai';
import tar from 'tar-stream';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { cis, commitInfo, flagOnlyProviders, originUrlIn, repoInfoIn, type Ci } from './ci-payloads.ts';
import { cliRetries, cliSucceeds, sendAsCli, type CliCall, type GoFormItem } from './go-wire.ts';

const sha = (n: number) => createHash('sha1').update(String(n)).digest('hex');

const passingXml =
  '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="api" tests="3" failures="0" errors="0" skipped="1" time="0.5" ' +
  'timestamp="2025-11-13T10:00:00.123456"><testcase name="a" time="0.25"/><testcase name="b" time="0.25"/><testcase name="c"><skipped/></testcase></testsuite>\n';
const failingXml =
  '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="db" tests="2" failures="1" errors="0" time="1.5">' +
  '<testcase name="d" time="1"><failure message="boom"/></testcase><testcase name="e" time="0.5"/></testsuite></testsuites>\n';
/** What `ingestJunitDir` makes of the two files (suite.Totals: counted from the test cases; the timestamp by parseTimestamp). */
const junitResults = [
  { name: 'api', failures: 0, errors: 0, skipped: 1, total: 3, duration: 0.5, timestamp: 1_763_028_000 },
  { name: 'db', failures: 1, errors: 0, skipped: 0, total: 2, duration: 1.5 },
];

describe('Kosli CLI wire format: flows, trails and attest junit', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  const send = async (call: Omit<CliCall, 'token'>, expected: number) => {
    const answer = await sendAsCli(server.url, { token: server.token, ...call });
    expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.equal(expected);
    expect(cliSucceeds(answer.status)).to.equal(true);
    return answer;
  };
  const templateFile = (content: string): GoFormItem => ({ type: 'file', name: 'template_file', filename: 'template.yml', bytes: Buffer.from(content) });

  it('create flow --use-empty-template: `version: 1` makes a flow that requires nothing (201, then 200)', async () => {
    const form: GoFormItem[] = [
      { type: 'field', name: 'data_json', content: { name: 'shop', description: 'The shop', visibility: 'private' } },
      templateFile('version: 1'),
    ];
    await send({ method: 'PUT', path: '/api/v2/flows/acme/template_file', form }, 201);
    await send({ method: 'PUT', path: '/api/v2/flows/acme/template_file', form }, 200);
    const flow = await sendAsCli(server.url, { method: 'GET', path: '/api/v2/flows/acme/shop', token: server.token });
    expect(flow.status).to.equal(200);
    expect(flow.json.name).to.equal('shop');
  });

  it('create flow --template-file, and the legacy JSON flow (--template artifact,unit-test)', async () => {
    const template = 'version: 1\ntrail:\n  artifacts:\n  - name: api\n    attestations:\n    - name: unit-tests\n      type: junit\n';
    const data = { name: 'api', description: '', visibility: 'private' };
    await send(
      { method: 'PUT', path: '/api/v2/flows/acme/template_file', form: [{ type: 'field', name: 'data_json', content: data }, templateFile(template)] },
      201,
    );
    await send(
      { method: 'PUT', path: '/api/v2/flows/acme', payload: { name: 'legacy', description: '', visibility: 'public', template: ['unit-test', 'artifact'] } },
      201,
    );
  });

  for (const ci of cis) {
    it(`begin trail and attest junit from ${ci}: 201, then 200 on update; the attachment is stored byte for byte`, async () => {
      const flow = `flow-${ci}`;
      const trail = sha(cis.indexOf(ci));
      const payload = beginTrailPayload(trail, ci);
      await send({ method: 'PUT', path: `/api/v2/trails/acme/${flow}`, form: [{ type: 'field', name: 'data_json', content: payload }] }, 201);
      await send({ method: 'PUT', path: `/api/v2/trails/acme/${flow}`, form: [{ type: 'field', name: 'data_json', content: payload }] }, 200);

      // Two result files: the CLI tars them as evidence.tgz.
      const evidence = await tarGz({ 'api.xml': passingXml, 'db.xml': failingXml });
      const junit = junitPayload('unit-tests', trail, ci);
      await send(
        {
          method: 'POST',
          path: `/api/v2/attestations/acme/${flow}/trail/${trail}/junit`,
          form: [
            { type: 'field', name: 'data_json', content: junit },
            { type: 'file', name: 'attachment_file', filename: 'evidence.tgz', bytes: evidence },
          ],
        },
        201,
      );
      // One result file goes as it is.
      await send(
        {
          method: 'POST',
          path: `/api/v2/attestations/acme/${flow}/trail/${trail}/junit`,
          form: [
            { type: 'field', name: 'data_json', content: junitPayload('api-tests', trail, ci, [junitResults[0]!]) },
            { type: 'file', name: 'attachment_file', filename: 'api.xml', bytes: Buffer.from(passingXml) },
          ],
        },
        201,
      );

      const stored = await server.attestations(flow, trail);
      expect(stored.map((a) => [a.name, a.attachmentName])).to.deep.equal([
        ['unit-tests', 'evidence.tgz'],
        ['api-tests', 'api.xml'],
      ]);
      expect(stored[0]!.data).to.deep.equal(junit);
      const download = await sendAsCli(server.url, {
        method: 'GET',
        path: `/api/v2/trails/acme/${flow}/${trail}/attestations/${stored[0]!.id}/attachment`,
        token: server.token,
      });
      expect(download.status).to.equal(200);
      expect(download.bytes.equals(evidence)).to.equal(true);
      expect(stored[0]!.attachmentSha256).to.equal(createHash('sha256').update(evidence).digest('hex'));

      const read = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/trails/acme/${flow}/${trail}`, token: server.token });
      expect(read.status).to.equal(200);
      expect(read.json.repo_info).to.deep.equal(repoInfoIn(ci) ?? null);
    });
  }

  it('begin trail with every --repo-provider value the CLI accepts (repoProviderList), on Bearer and on Basic authorization', async () => {
    for (const [i, provider] of flagOnlyProviders.entries()) {
      const payload = { name: `provider-${i}`, repo_info: { url: 'https://scm.acme.example/shop', name: 'shop', id: 'r-1', provider } };
      await send(
        {
          method: 'PUT',
          path: '/api/v2/trails/acme/providers',
          auth: i % 2 ? 'basic' : 'bearer',
          form: [{ type: 'field', name: 'data_json', content: payload }],
        },
        201,
      );
    }
  });

  it('a client mistake is never a status the CLI retries (409, 429, 5xx): an invalid trail name is a 400 naming the value', async () => {
    const answer = await sendAsCli(server.url, {
      method: 'PUT',
      path: '/api/v2/trails/acme/shop',
      token: server.token,
      form: [{ type: 'field', name: 'data_json', content: { name: 'foo?$bar' } }],
    });
    expect(answer.status).to.equal(400);
    expect(cliRetries(answer.status)).to.equal(false);
    expect(answer.json.errors.name).to.contain('foo?$bar');
    // The CLI prints message and errors; the value is in what it prints.
    expect(`${answer.json.message}: ${JSON.stringify(answer.json.errors)}`).to.contain("'foo?$bar'");
  });

  it('attest junit to a trail that was never begun: 201, the trail made on first use (Kosli: "attesting without a template")', async () => {
    const answer = await sendAsCli(server.url, {
      method: 'POST',
      path: '/api/v2/attestations/acme/shop/trail/never-begun/junit',
      token: server.token,
      form: [{ type: 'field', name: 'data_json', content: junitPayload('unit-tests', sha(1), 'local') }],
    });
    expect(answer.status, answer.text).to.equal(201);
    expect((await server.attestations('shop', 'never-begun')).map((a) => a.name)).to.deep.equal(['unit-tests']);
  });
});

/** `TrailPayload` (beginTrail.go): `description`, `user_data`, `origin_url`, `external_urls` left out when empty. */
function beginTrailPayload(trail: string, ci: Ci): Record<string, unknown> {
  const payload: Record<string, unknown> = { name: trail, description: `Build of ${trail.slice(0, 7)} <main>`, git_commit_info: commitInfo(trail, ci) };
  const repo = repoInfoIn(ci);
  if (repo) payload.repo_info = repo;
  const origin = originUrlIn(ci);
  if (origin) payload.origin_url = origin;
  return payload;
}

/** `JunitAttestationPayload`: the common fields first (CommonAttestationPayload, embedded), then `junit_results`. */
function junitPayload(name: string, commit: string, ci: Ci, results = junitResults): Record<string, unknown> {
  const payload: Record<string, unknown> = { git_commit_info: commitInfo(commit, ci) };
  const repo = repoInfoIn(ci);
  if (repo) payload.repo_info = repo;
  payload.attestation_name = name;
  const origin = originUrlIn(ci);
  if (origin) payload.origin_url = origin;
  payload.junit_results = results;
  return payload;
}

/** A .tar.gz of the named files, as the CLI sends several result files. */
async function tarGz(files: Record<string, string>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name }, content);
  pack.finalize();
  return buffer(pack.pipe(createGzip()));
}
