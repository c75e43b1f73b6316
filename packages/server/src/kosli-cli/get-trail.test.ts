// @database
/**
 * `kosli get trail` reading a trail with artifacts, as its printers read the answer. Followed:
 * cmd/kosli/getTrail.go at 71ac0f30: `printTrailAsTable` (name, description, compliance_state,
 * last_modified_at; `git_commit_info.sha1/author/message` as strings and `timestamp` as float64
 * without checks; every event's `timestamp.(float64)` and `type.(string)` without checks, and the
 * description it makes of each type), `printTrailAsMarkdown`/`writeAttestationStatuses`
 * (`compliance_status.artifacts_statuses` by name, each `status` and `attestations_statuses`), and
 * getTrail_markdown_test.go's fixture (a template artifact not reported is `MISSING`). Kosli's
 * answer shape: docs client_reference/kosli_get_trail.md and the OpenAPI's `GetTrail`.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { getTrail } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';
import { goDecodeProblems, sendAsCli, type CliCall, type GoType } from './go-wire.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const commit = createHash('sha1').update('get-trail').digest('hex');
const commitInfo = { sha1: commit, message: 'Build it', author: 'Ada <ada@example.com>', timestamp: 1_763_800_000, branch: 'main' };

/** What the table printer reads without a check (a wrong type panics the CLI). */
const trailAsTablePrinterReads: GoType = {
  compliance_state: 'string',
  last_modified_at: 'float64',
  git_commit_info: { sha1: 'string', author: 'string', timestamp: 'float64', message: 'string' },
  events: [{ timestamp: 'float64', type: 'string' }],
  compliance_status: {
    artifacts_statuses: 'map',
    attestations_statuses: [{ attestation_name: 'string', status: 'string', unexpected: 'bool' }],
  },
};

/** eventFields' description of an event, as Go's `%s` prints each field (`%!s(<nil>)` for one absent). */
function describe_(e: Record<string, unknown>): string {
  const s = (v: unknown) => (v === undefined || v === null ? '%!s(<nil>)' : String(v));
  switch (e.type) {
    case 'trail_reported':
      return 'trail started';
    case 'trail_attestation_reported':
      return `'${s(e.attestation_type)}' attestation reported for ${s(e.template_reference_name)} on the trail`;
    case 'artifact_creation_reported':
      return `artifact '${s(e.artifact_name)}' created for template name '${s(e.template_reference_name)}'`;
    case 'artifact_attestation_reported':
    case 'trail_attestation_for_artifact_reported':
      return `'${s(e.attestation_type)}' attestation reported for ${s(e.target_artifact)}.${s(e.template_reference_name)}`;
    default:
      return String(e.type);
  }
}

describe('Kosli CLI wire format: get trail with its artifacts', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const send = (call: Omit<CliCall, 'token'>) => sendAsCli(server.url, { token: server.token, ...call });
  const generic = (trail: string, data: Record<string, unknown>) =>
    send({ method: 'POST', path: `/api/v2/attestations/acme/shop/trail/${trail}/generic`, form: [{ type: 'field', name: 'data_json', content: data }] });
  const template =
    'version: 1\ntrail:\n  attestations:\n  - name: review\n    type: generic\n  artifacts:\n  - name: backend\n    attestations:\n' +
    '    - name: unit-tests\n      type: generic\n    - name: scan\n      type: generic\n  - name: frontend\n    attestations:\n    - name: lint\n      type: generic\n';

  it('answers each artifact (name, fingerprint, its attestations, its state), a template artifact not reported as MISSING, and the events the CLI prints', async () => {
    const begun = await send({
      method: 'PUT',
      path: '/api/v2/trails/acme/shop',
      form: [
        { type: 'field', name: 'data_json', content: { name: 't1', git_commit_info: commitInfo } },
        { type: 'file', name: 'template_file', filename: 'template.yml', bytes: Buffer.from(template) },
      ],
    });
    expect(begun.status, begun.text).to.equal(201);
    // Before the artifact: by template name (`--name backend.unit-tests`).
    expect(
      (await generic('t1', { git_commit_info: commitInfo, attestation_name: 'unit-tests', target_artifacts: ['backend'], is_compliant: true })).status,
    ).to.equal(201);
    const fingerprint = sha256('backend');
    const artifact = {
      fingerprint,
      filename: 'registry.example.com/backend:abc1234',
      git_commit: commit,
      git_commit_info: commitInfo,
      build_url: 'https://ci.example.com/runs/1',
      commit_url: `https://github.com/acme/shop/commit/${commit}`,
      repo_url: 'https://github.com/acme/shop',
      template_reference_name: 'backend',
      trail_name: 't1',
    };
    expect((await send({ method: 'POST', path: '/api/v2/artifacts/acme/shop', payload: artifact })).status).to.equal(201);
    // After it: by fingerprint alone (`--fingerprint`); and one at trail level.
    expect(
      (await generic('t1', { artifact_fingerprint: fingerprint, git_commit_info: commitInfo, attestation_name: 'scan', is_compliant: false })).status,
    ).to.equal(201);
    expect((await generic('t1', { git_commit_info: commitInfo, attestation_name: 'review', is_compliant: true })).status).to.equal(201);

    const answer = await send({ method: 'GET', path: '/api/v2/trails/acme/shop/t1' });
    expect(answer.status, answer.text).to.equal(200);
    const trail = answer.json;
    assertMatchesContract(getTrail, 200, trail);
    expect(goDecodeProblems(trail, trailAsTablePrinterReads)).to.deep.equal([]);

    const { backend, frontend } = trail.compliance_status.artifacts_statuses;
    expect(backend).to.deep.include({ artifact_fingerprint: fingerprint, status: 'NON-COMPLIANT', is_compliant: false, unexpected: false });
    expect(backend.artifact_id).to.be.a('string');
    expect(backend.attestations_statuses.map((s: any) => [s.attestation_name, s.status, s.is_compliant])).to.deep.equal([
      ['unit-tests', 'COMPLETE', true],
      ['scan', 'COMPLETE', false],
    ]);
    // Expected by the template and never reported: MISSING, with its attestations missing too.
    expect(frontend).to.deep.include({ artifact_fingerprint: null, artifact_id: null, status: 'MISSING', is_compliant: false });
    expect(frontend.attestations_statuses.map((s: any) => [s.attestation_name, s.status])).to.deep.equal([['lint', 'MISSING']]);

    // The events table, as printTrailAsTable writes its DESCRIPTION column.
    expect(trail.events.map(describe_)).to.deep.equal([
      'trail started',
      "'generic' attestation reported for backend.unit-tests",
      "artifact 'registry.example.com/backend:abc1234' created for template name 'backend'",
      "'generic' attestation reported for backend.scan",
      "'generic' attestation reported for review on the trail",
    ]);
    expect(trail.events_total).to.equal(5);
    const created = trail.events.find((e: any) => e.type === 'artifact_creation_reported');
    expect(created).to.deep.include({ artifact_fingerprint: fingerprint, artifact_id: backend.artifact_id, git_commit: commit });
    // eventFields shows the first 7 characters of each event's commit.
    for (const e of trail.events) expect(e.git_commit_info.sha1.slice(0, 7)).to.equal(commit.slice(0, 7));
    const ids = trail.events.flatMap((e: any) => (e.attestation_id ? [e.attestation_id] : []));
    expect(ids).to.have.length(3);
    for (const id of ids) expect(id).to.be.a('string');
  });

  it('an organisation of another token reads none of it', async () => {
    const answer = await sendAsCli(server.url, { method: 'GET', path: '/api/v2/trails/acme/shop/t1', token: server.otherToken });
    expect(answer.status).to.be.oneOf([403, 404]);
    expect(answer.text).to.not.contain('backend');
  });
});
