// @database
/**
 * The Kosli CLI's custom attestation types, custom attestations, pull request attestations and the
 * reads `kosli get attestation` and `kosli evaluate trail` make, byte for byte as it sends them and
 * decoded as its Go types decode them. Followed (kosli-dev/cli 71ac0f30): createAttestationType.go
 * (`CreateAttestationTypePayload`, the `type_schema` file part), getAttestationType.go (`@vN` as
 * `?version=N`; the table printer's type assertions), listAttestationTypes.go, archiveAttestationType.go
 * (PUT with a `null` JSON body), attestCustom.go (`CustomAttestationPayload`), pullrequest.go and
 * internal/types/types.go (`PREvidence`, V1 and V2 approvers), getAttestation.go (`Attestation`),
 * evaluateHelpers.go and internal/evaluate/transform.go (string `attestation_id`s, `{data:[...]}`).
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { commitInfo, repoInfoIn } from './ci-payloads.ts';
import { goDecodeProblems, nullable, sendAsCli, type CliCall, type GoFormItem, type GoType } from './go-wire.ts';

const sha = '8f2c1e0b9a7d6c5b4a3928170615f4e3d2c1b0a9';
const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['critical', 'scanner'],
  properties: { critical: { type: 'integer', minimum: 0 }, scanner: { type: 'object', properties: { name: { type: 'string' } } } },
};
/** `kosli create attestation-type scan --schema scan.json --jq '.critical == 0' --jq '.scanner.name != null' --summary Critical=.critical`. */
const typePayload = {
  name: 'scan',
  description: 'Scanner summary',
  evaluator: { content_type: 'jq', rules: ['.critical == 0', '.scanner.name != null'] },
  summary: [{ name: 'Critical', expression: '.critical' }],
};
const schemaFile = (content: unknown): GoFormItem => ({
  type: 'file',
  name: 'type_schema',
  filename: 'scan.json',
  bytes: Buffer.from(JSON.stringify(content)),
});

/** What printAttestationTypeAsTable and printVersionedAttestationTypeAsTable read without a check. */
const GoAttestationType: GoType = {
  name: 'string',
  org: 'string',
  created_at: 'float64',
  last_modified_at: 'float64',
  versions: [{ version: 'float64', timestamp: 'float64' }],
};
/** getAttestation.go's `Attestation`, as json.Unmarshal would refuse it. */
const GoAttestation: GoType = {
  attestation_name: 'string',
  attestation_type: 'string',
  is_compliant: 'bool',
  artifact_fingerprint: 'string?',
  created_at: 'float64',
  git_commit_info: nullable({ sha1: 'string', author: 'string', message: 'string', branch: 'string', timestamp: 'float64' }),
  html_url: 'string',
};

describe('Kosli CLI wire format: custom attestation types, attest custom and pullrequest, get attestation and evaluate trail', function () {
  // The judge's thread starts on the first type saved (under tsx, a second or two).
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await send(
      {
        method: 'PUT',
        path: '/api/v2/flows/acme/template_file',
        form: [{ type: 'field', name: 'data_json', content: { name: 'shop', description: '', visibility: 'private' } }, templateFile],
      },
      201,
    );
    await send(
      {
        method: 'PUT',
        path: '/api/v2/trails/acme/shop',
        form: [{ type: 'field', name: 'data_json', content: { name: sha, git_commit_info: commitInfo(sha, 'github') } }],
      },
      201,
    );
  });
  after(() => server.close());

  const send = async (call: Omit<CliCall, 'token'>, expected: number) => {
    const answer = await sendAsCli(server.url, { token: server.token, ...call });
    expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.equal(expected);
    return answer;
  };
  const templateFile: GoFormItem = {
    type: 'file',
    name: 'template_file',
    filename: 'template.yml',
    bytes: Buffer.from(
      'version: 1\ntrail:\n  attestations:\n  - name: pr\n    type: pull_request\n  - name: scan\n    type: custom:scan\n' +
        '  artifacts:\n  - name: api\n    attestations:\n    - name: api-scan\n      type: custom:scan\n',
    ),
  };
  const createType = (payload: unknown, file?: GoFormItem) =>
    sendAsCli(server.url, {
      method: 'POST',
      path: '/api/v2/custom-attestation-types/acme',
      token: server.token,
      form: [{ type: 'field', name: 'data_json', content: payload }, ...(file ? [file] : [])],
    });
  const common = (name: string) => ({ git_commit_info: commitInfo(sha, 'github'), repo_info: repoInfoIn('github'), attestation_name: name });
  const attestCustom = (name: string, data: unknown, type = 'scan') =>
    sendAsCli(server.url, {
      method: 'POST',
      path: `/api/v2/attestations/acme/shop/trail/${sha}/custom`,
      token: server.token,
      form: [{ type: 'field', name: 'data_json', content: { ...common(name), type_name: type, attestation_data: data } }],
    });

  it('create attestation-type: 201, the same again adds no version (200), a change adds version 2; get NAME and NAME@v1 decode as the CLI reads them', async () => {
    expect((await createType(typePayload, schemaFile(schema))).status).to.equal(201);
    expect((await createType(typePayload, schemaFile(schema))).status).to.equal(200);
    const v1 = (await send({ method: 'GET', path: '/api/v2/custom-attestation-types/acme/scan' }, 200)).json;
    expect(v1.versions).to.have.length(1);
    const changed = { ...typePayload, evaluator: { content_type: 'jq', rules: [...typePayload.evaluator.rules, '.critical < 100'] } };
    expect((await createType(changed, schemaFile(schema))).status).to.equal(200);
    const type = (await send({ method: 'GET', path: '/api/v2/custom-attestation-types/acme/scan' }, 200)).json;
    expect(goDecodeProblems(type, GoAttestationType)).to.deep.equal([]);
    expect(type.versions.map((v: { version: number }) => v.version)).to.deep.equal([1, 2]);
    expect(type.versions[1].evaluator.rules).to.deep.equal(changed.evaluator.rules);
    expect(type.versions[0].type_schema).to.deep.equal(schema);
    // `kosli get attestation-type scan@v1` sends `?version=1` (handleCustomAttestationTypeExpression).
    const first = (await send({ method: 'GET', path: '/api/v2/custom-attestation-types/acme/scan?version=1' }, 200)).json;
    expect(first.versions.map((v: { version: number }) => v.version)).to.deep.equal([1]);
    expect(first.versions[0].summary).to.deep.equal(typePayload.summary);
    await send({ method: 'GET', path: '/api/v2/custom-attestation-types/acme/scan?version=9' }, 404);
    // Back to the first definition: a new version (3) that judges as version 1 did.
    expect((await createType(typePayload, schemaFile(schema))).status).to.equal(200);
    const list = (await send({ method: 'GET', path: '/api/v2/custom-attestation-types/acme' }, 200)).json;
    expect(goDecodeProblems(list, [GoAttestationType])).to.deep.equal([]);
    expect(list.map((t: { name: string; versions: unknown[] }) => [t.name, t.versions.length])).to.deep.equal([['scan', 3]]);
    expect(list[0].versions[2].sha256).to.equal(list[0].versions[0].sha256);
  });

  it('create attestation-type refuses a schema that is not JSON Schema and a rule that does not compile, naming them (400, nothing stored)', async () => {
    const badRule = await createType({ name: 'broken', evaluator: { content_type: 'jq', rules: ['.a == 1', '.a =='] } });
    expect(badRule.status).to.equal(400);
    expect(badRule.json.errors.type).to.contain('rule 2 does not compile');
    const badSchema = await createType({ name: 'broken' }, schemaFile({ type: 'no-such-type' }));
    expect(badSchema.status).to.equal(400);
    expect(badSchema.json.errors.type).to.contain('type_schema is not a valid JSON Schema');
    const notJson = await createType({ name: 'broken' }, { type: 'file', name: 'type_schema', filename: 's.json', bytes: Buffer.from('{"type":') });
    expect(notJson.status).to.equal(400);
    await send({ method: 'GET', path: '/api/v2/custom-attestation-types/acme/broken' }, 404);
  });

  it('attest custom: compliant iff the data validates and every rule is true; the attestation names the version that judged it', async () => {
    await send({ method: 'GET', path: '/api/v2/custom-attestation-types/acme/scan' }, 200);
    expect((await attestCustom('scan', { critical: 0, scanner: { name: 'trivy' } })).status).to.equal(201);
    expect((await attestCustom('scan-critical', { critical: 2, scanner: { name: 'trivy' } })).status).to.equal(201);
    expect((await attestCustom('scan-invalid', { critical: 'none' })).status).to.equal(201);
    const stored = await server.attestations('shop', sha);
    const byName = new Map(stored.map((a) => [a.name, a]));
    expect([...byName.values()].map((a) => [a.name, a.type, a.compliant])).to.deep.include.members([
      ['scan', 'custom:scan', true],
      ['scan-critical', 'custom:scan', false],
      ['scan-invalid', 'custom:scan', false],
    ]);
    const evaluation = (byName.get('scan-critical')!.data as { evaluation: any }).evaluation;
    expect(evaluation.type_version).to.equal(3);
    expect(evaluation.rules.map((r: { rule: string; passed: boolean }) => [r.rule, r.passed])).to.deep.equal([
      ['.critical == 0', false],
      ['.scanner.name != null', true],
    ]);
    expect((byName.get('scan-invalid')!.data as { evaluation: any }).evaluation.schema_errors.join()).to.contain('/critical must be integer');
    const unknown = await attestCustom('other', {}, 'no-such-type');
    expect(unknown.status).to.equal(404);
    expect(unknown.json.message).to.contain("'no-such-type'");
  });

  it('attest pullrequest github in both shapes the CLI sends (V1 approvers as names, V2 with state, timestamp, base_ref, verified, signature_state): compliant iff one was found', async () => {
    const commit = {
      sha1: sha,
      message: 'Fix the cart',
      author: 'Ada <ada@example.com>',
      timestamp: 1_763_028_000,
      branch: 'fix-cart',
      url: `https://github.com/acme/shop/commit/${sha}`,
    };
    const v1 = { merge_commit: sha, url: 'https://github.com/acme/shop/pull/7', state: 'MERGED', approvers: ['grace'], author: 'ada', commits: [commit] };
    const v2 = {
      merge_commit: sha,
      url: 'https://github.com/acme/shop/pull/8',
      state: 'OPEN',
      approvers: [{ username: 'grace', state: 'APPROVED', timestamp: 1_763_028_100 }],
      author: 'ada',
      created_at: 1_763_020_000,
      title: 'Fix the cart',
      head_ref: 'fix-cart',
      base_ref: 'main',
      commits: [{ ...commit, author_username: 'ada', verified: true, signature_state: 'VALID' }],
    };
    const attestPr = (name: string, prs: unknown) =>
      send(
        {
          method: 'POST',
          path: `/api/v2/attestations/acme/shop/trail/${sha}/pull_request`,
          form: [{ type: 'field', name: 'data_json', content: { ...common(name), git_provider: 'github', pull_requests: prs } }],
        },
        201,
      );
    await attestPr('pr-v1', [v1]);
    await attestPr('pr', [v2]);
    // No pull request found: the CLI's nil slice is `null`.
    await attestPr('pr-none', null);
    const stored = new Map((await server.attestations('shop', sha)).map((a) => [a.name, a]));
    expect([stored.get('pr-v1')!.compliant, stored.get('pr')!.compliant, stored.get('pr-none')!.compliant]).to.deep.equal([true, true, false]);
    expect((stored.get('pr')!.data as { pull_requests: unknown[] }).pull_requests).to.deep.equal([v2]);
    const wrong = await sendAsCli(server.url, {
      method: 'POST',
      path: `/api/v2/attestations/acme/shop/trail/${sha}/pull_request`,
      token: server.token,
      form: [{ type: 'field', name: 'data_json', content: { ...common('pr-x'), git_provider: 'sourceforge', pull_requests: [] } }],
    });
    expect(wrong.status).to.equal(400);
  });

  it('evaluate trail: the template asks for pull_request and custom:scan (trail and artifact); each attestation_id is a string the detail read answers as {data:[...]} with the fields Rego reads', async () => {
    const trail = (await send({ method: 'GET', path: `/api/v2/trails/acme/shop/${sha}` }, 200)).json;
    const statuses: Array<Record<string, unknown>> = trail.compliance_status.attestations_statuses;
    const named = new Map(statuses.map((s) => [s.attestation_name, s]));
    expect(named.get('pr')).to.deep.include({ attestation_type: 'pull_request', status: 'COMPLETE', is_compliant: true });
    expect(named.get('scan')).to.deep.include({ attestation_type: 'custom:scan', status: 'COMPLETE', is_compliant: true });
    expect(trail.compliance_status.artifacts_statuses.api.attestations_statuses[0]).to.deep.include({ attestation_name: 'api-scan', status: 'MISSING' });
    for (const status of statuses) expect(status.attestation_id).to.be.a('string');

    // evaluateHelpers.go: GET /attestations/{org}?attestation_id=ID for every id; data[0] is merged into the status.
    const detail = async (id: unknown) => (await send({ method: 'GET', path: `/api/v2/attestations/acme?attestation_id=${id}` }, 200)).json;
    const pr = await detail(named.get('pr')!.attestation_id);
    expect(goDecodeProblems(pr.data, [GoAttestation])).to.deep.equal([]);
    expect(pr.data[0]).to.deep.include({ attestation_name: 'pr', attestation_type: 'pull_request', git_provider: 'github' });
    expect(pr.data[0].pull_requests[0].base_ref).to.equal('main');
    const scan = await detail(named.get('scan')!.attestation_id);
    expect(scan.data[0].attestation_data).to.deep.equal({ critical: 0, scanner: { name: 'trivy' } });
    expect(scan.data[0].type_name).to.equal('scan');
    expect(scan.data[0].evaluation.rules.every((r: { passed: boolean }) => r.passed)).to.equal(true);
    await send({ method: 'GET', path: '/api/v2/attestations/acme?attestation_id=999999' }, 404);
  });

  it('get attestation NAME --trail: every attestation of the name, as getAttestation.go decodes it; another organisation reads none of them', async () => {
    expect((await attestCustom('scan', { critical: 1, scanner: { name: 'trivy' } })).status).to.equal(201);
    const answer = await send({ method: 'GET', path: `/api/v2/attestations/acme/shop/trail/${sha}/scan` }, 200);
    expect(goDecodeProblems(answer.json, [GoAttestation])).to.deep.equal([]);
    expect(answer.json.map((a: { is_compliant: boolean; is_latest: boolean }) => [a.is_compliant, a.is_latest])).to.deep.equal([
      [true, false],
      [false, true],
    ]);
    await send({ method: 'GET', path: `/api/v2/attestations/acme/shop/trail/${sha}/never` }, 404);
    const id = answer.json[0].attestation_id;
    const foreign = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/attestations/globex?attestation_id=${id}`, token: server.otherToken });
    expect(foreign.status).to.equal(404);
    const crossed = await sendAsCli(server.url, { method: 'GET', path: `/api/v2/attestations/acme?attestation_id=${id}`, token: server.otherToken });
    expect(crossed.status).to.be.oneOf([401, 403]);
  });

  it('archive attestation-type: PUT with the null body the CLI sends; the list leaves it out, get still reads it, attest custom refuses it', async () => {
    await send({ method: 'PUT', path: '/api/v2/custom-attestation-types/acme/scan/archive', payload: null }, 200);
    expect((await send({ method: 'GET', path: '/api/v2/custom-attestation-types/acme' }, 200)).json).to.deep.equal([]);
    expect((await send({ method: 'GET', path: '/api/v2/custom-attestation-types/acme/scan' }, 200)).json.archived).to.equal(true);
    const refused = await attestCustom('scan', { critical: 0, scanner: { name: 'trivy' } });
    expect(refused.status).to.equal(400);
    expect(refused.json.message).to.contain('archived');
    await send({ method: 'PUT', path: '/api/v2/custom-attestation-types/acme/never/archive', payload: null }, 404);
  });
});
