// @database
/**
 * `kosli attest artifact` on the wire, and attestations binding to artifacts in either order.
 * Followed: cmd/kosli/attestArtifact.go (`AttestArtifactPayload`: fields in struct order,
 * `repo_info`, `external_urls` and `annotations` left out when empty, `git_commit_info` the
 * `BasicCommitInfo` with `url` left out when empty; success = 200 or 201), cmd/kosli/attestation.go
 * (`CommonAttestationPayload`: `--name backend.unit-tests` sends `attestation_name: unit-tests`
 * and `target_artifacts: [backend]`), cmd/kosli/attestJunit_test.go (the refusal's wording),
 * cmd/kosli/getTrail.go (reads `compliance_status.artifacts_statuses.*.status` and its
 * `attestations_statuses`), kosli-dev/docs getting_started/attestations.md ("Attesting without a template").
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { cliSucceeds, goDecodeProblems, nullable, sendAsCli, type CliCall, type GoType } from './go-wire.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sha1 = (n: number) => createHash('sha1').update(String(n)).digest('hex');

/** `AttestArtifactPayload` as json.Marshal writes it from the CLI's flags (a local run: no repo_info). */
function artifactPayload(o: { fingerprint: string; name: string; trail: string; commit: string; filename?: string; annotations?: Record<string, string> }) {
  return {
    fingerprint: o.fingerprint,
    filename: o.filename ?? `${o.name}.tgz`,
    git_commit: o.commit,
    git_commit_info: { sha1: o.commit, message: 'Build it', author: 'Ada <ada@example.com>', timestamp: 1_763_800_000, branch: 'main' },
    build_url: 'https://ci.example.com/runs/1',
    commit_url: `https://github.com/acme/shop/commit/${o.commit}`,
    repo_url: 'https://github.com/acme/shop',
    template_reference_name: o.name,
    trail_name: o.trail,
    ...(o.annotations ? { annotations: o.annotations } : {}),
  };
}

/** `GenericAttestationPayload`: the common fields (`--name backend.unit-tests` split into target and name), then `is_compliant`. */
function genericPayload(name: string, commit: string, compliant: boolean, fingerprint?: string) {
  const [target, attestation] = name.includes('.') ? name.split('.') : [undefined, name];
  return {
    ...(fingerprint ? { artifact_fingerprint: fingerprint } : {}),
    git_commit_info: { sha1: commit, message: 'Build it', author: 'Ada <ada@example.com>', timestamp: 1_763_800_000, branch: 'main' },
    attestation_name: attestation,
    ...(target ? { target_artifacts: [target] } : {}),
    is_compliant: compliant,
  };
}

/** What getTrail.go's markdown and table read of an artifact's status, without checks. */
const artifactStatusAsRead: GoType = {
  artifact_fingerprint: 'string?',
  status: 'string',
  attestations_statuses: [{ attestation_name: 'string', status: 'string', is_compliant: 'bool?', unexpected: 'bool' }],
};

describe('Kosli CLI wire format: attest artifact and binding', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const send = (call: Omit<CliCall, 'token'>, token = server.token) => sendAsCli(server.url, { token, ...call });
  const attestArtifact = (flow: string, payload: unknown, token?: string) => send({ method: 'POST', path: `/api/v2/artifacts/acme/${flow}`, payload }, token);
  const attestGeneric = (flow: string, trail: string, data: unknown) =>
    send({ method: 'POST', path: `/api/v2/attestations/acme/${flow}/trail/${trail}/generic`, form: [{ type: 'field', name: 'data_json', content: data }] });
  const beginTrail = (flow: string, trail: string, commit: string, template?: string) =>
    send({
      method: 'PUT',
      path: `/api/v2/trails/acme/${flow}`,
      form: [
        {
          type: 'field',
          name: 'data_json',
          content: { name: trail, git_commit_info: { sha1: commit, message: 'm', author: 'Ada', timestamp: 1, branch: 'main' } },
        },
        ...(template ? [{ type: 'file' as const, name: 'template_file', filename: 'template.yml', bytes: Buffer.from(template) }] : []),
      ],
    });
  const getTrail = async (flow: string, trail: string) => {
    const answer = await send({ method: 'GET', path: `/api/v2/trails/acme/${flow}/${trail}` });
    expect(answer.status, answer.text).to.equal(200);
    return answer.json;
  };
  const template =
    'version: 1\ntrail:\n  artifacts:\n  - name: backend\n    attestations:\n    - name: unit-tests\n      type: generic\n    - name: scan\n      type: generic\n';

  it('attest artifact: 201, then 200 for the same fingerprint on the trail (nothing stored twice); chained, logged and verified', async () => {
    const commit = sha1(1);
    expect((await beginTrail('shop', 't1', commit, template)).status).to.equal(201);
    const payload = artifactPayload({ fingerprint: sha256('backend:1'), name: 'backend', trail: 't1', commit, annotations: { team: 'core' } });
    const first = await attestArtifact('shop', payload);
    expect(first.status, first.text).to.equal(201);
    expect(cliSucceeds(first.status)).to.equal(true);
    const again = await attestArtifact('shop', payload);
    expect(again.status, again.text).to.equal(200);
    const organizationId = Number((await server.store.findOrganization('acme'))!.id);
    const stored = await server.store.artifactsByFingerprints(organizationId, [payload.fingerprint]);
    expect(stored.map((r) => [r.flowName, r.trailName, r.templateReferenceName, r.filename, r.gitCommit])).to.deep.equal([
      ['shop', 't1', 'backend', 'backend.tgz', commit],
    ]);
    expect(stored[0]!.createdBy?.tokenId).to.be.a('string');
    expect((await server.store.logIndexesOf(organizationId, 'artifacts', [stored[0]!.id])).size).to.equal(1);
    const verified = await send({ method: 'GET', path: '/api/v2/verify/acme' });
    expect(verified.json, verified.text).to.deep.include({ ok: true });
  });

  it('binds in either order: by template name and commit before the artifact, by fingerprint after; the artifact is MISSING, then NON-COMPLIANT', async () => {
    const commit = sha1(2);
    await beginTrail('shop', 't2', commit, template);
    // Before the artifact is reported, by name (`--name backend.unit-tests --commit`).
    expect((await attestGeneric('shop', 't2', genericPayload('backend.unit-tests', commit, true))).status).to.equal(201);
    let trail = await getTrail('shop', 't2');
    // Not reported yet: MISSING, as Kosli shows it (getTrail_markdown_test.go's fixture), though one of its attestations is made.
    expect(trail.compliance_status.artifacts_statuses.backend).to.deep.include({ artifact_fingerprint: null, artifact_id: null, status: 'MISSING' });
    const fingerprint = sha256('backend:2');
    expect((await attestArtifact('shop', artifactPayload({ fingerprint, name: 'backend', trail: 't2', commit }))).status).to.equal(201);
    // After it, by fingerprint alone (`--fingerprint`, a name without a target).
    expect((await attestGeneric('shop', 't2', genericPayload('scan', commit, false, fingerprint))).status).to.equal(201);
    trail = await getTrail('shop', 't2');
    const backend = trail.compliance_status.artifacts_statuses.backend;
    expect(goDecodeProblems(backend, artifactStatusAsRead)).to.deep.equal([]);
    expect(backend).to.deep.include({ artifact_fingerprint: fingerprint, status: 'NON-COMPLIANT', is_compliant: false, unexpected: false });
    expect(backend.attestations_statuses.map((s: any) => [s.attestation_name, s.status, s.is_compliant])).to.deep.equal([
      ['unit-tests', 'COMPLETE', true],
      ['scan', 'COMPLETE', false],
    ]);
    expect(trail.compliance_status.attestations_statuses).to.deep.equal([]);
    expect(trail.compliance_status.is_compliant).to.equal(false);
  });

  it('an attestation by fingerprint made before its artifact (naming the template artifact) binds when the artifact arrives; the artifact becomes COMPLIANT', async () => {
    const commit = sha1(3);
    await beginTrail('shop', 't3', commit, template);
    const fingerprint = sha256('backend:3');
    expect((await attestGeneric('shop', 't3', genericPayload('backend.unit-tests', commit, true, fingerprint))).status).to.equal(201);
    expect((await attestGeneric('shop', 't3', genericPayload('backend.scan', commit, true, fingerprint))).status).to.equal(201);
    expect((await getTrail('shop', 't3')).compliance_status.artifacts_statuses.backend).to.deep.include({
      artifact_fingerprint: fingerprint,
      artifact_id: null,
    });
    expect((await attestArtifact('shop', artifactPayload({ fingerprint, name: 'backend', trail: 't3', commit }))).status).to.equal(201);
    const trail = await getTrail('shop', 't3');
    expect(trail.compliance_status.artifacts_statuses.backend).to.deep.include({ artifact_fingerprint: fingerprint, status: 'COMPLIANT', is_compliant: true });
    expect(trail.compliance_status.is_compliant).to.equal(true);
  });

  it("refuses an attestation whose fingerprint no artifact of the trail has and that names no template artifact, with Kosli's words; stores nothing", async () => {
    const commit = sha1(4);
    await beginTrail('shop', 't4', commit, template);
    const fingerprint = sha256('nothing');
    const answer = await attestGeneric('shop', 't4', genericPayload('unit-tests', commit, true, fingerprint));
    expect(answer.status).to.equal(404);
    expect(answer.json.message).to.equal(
      `Artifact with fingerprint ${fingerprint} does not exist in trail "t4" of flow "shop" belonging to organization "acme"`,
    );
    expect(await server.attestations('shop', 't4')).to.deep.equal([]);
    // A trail it would make in a flow with a template is not made either.
    const flow = await send({
      method: 'PUT',
      path: '/api/v2/flows/acme/template_file',
      form: [
        { type: 'field', name: 'data_json', content: { name: 'gated', description: '', visibility: 'private' } },
        { type: 'file', name: 'template_file', filename: 'template.yml', bytes: Buffer.from(template) },
      ],
    });
    expect(flow.status, flow.text).to.equal(201);
    expect((await attestGeneric('gated', 'never', genericPayload('unit-tests', commit, true, fingerprint))).status).to.equal(404);
    const organizationId = Number((await server.store.findOrganization('acme'))!.id);
    expect(await server.store.findTrail(organizationId, 'gated', 'never')).to.equal(undefined);
  });

  it('made on first use: attest artifact to a flow and trail that do not exist creates both without a template; compliance is the attestations made', async () => {
    const commit = sha1(5);
    const fingerprint = sha256('api:5');
    const answer = await attestArtifact('new-flow', artifactPayload({ fingerprint, name: 'api', trail: 'first', commit }));
    expect(answer.status, answer.text).to.equal(201);
    expect((await attestGeneric('new-flow', 'first', genericPayload('lint', commit, true, fingerprint))).status).to.equal(201);
    const trail = await getTrail('new-flow', 'first');
    expect(trail.git_commit_info).to.deep.include({ sha1: commit });
    expect(trail.compliance_status).to.deep.include({ status: 'COMPLIANT', flow_template_id: null });
    expect(trail.compliance_status.artifacts_statuses.api).to.deep.include({ artifact_fingerprint: fingerprint, status: 'COMPLIANT', unexpected: false });
    // A failing attestation is all it takes to make it NON-COMPLIANT; nothing is missing without a template.
    expect((await attestGeneric('new-flow', 'first', genericPayload('api.scan', commit, false))).status).to.equal(201);
    expect((await getTrail('new-flow', 'first')).compliance_status.artifacts_statuses.api.status).to.equal('NON-COMPLIANT');
    // Without a template an attestation may name a fingerprint not reported yet (Trailproof's action does).
    expect((await attestGeneric('new-flow', 'second', genericPayload('lint', commit, true, sha256('later')))).status).to.equal(201);
  });

  it('answers 400 naming bad fields, 403 to a read-only token and another organisation, and stores nothing', async () => {
    const commit = sha1(6);
    const good = artifactPayload({ fingerprint: sha256('x'), name: 'backend', trail: 't6', commit });
    for (const [bad, field] of [
      [{ ...good, fingerprint: 'xxxx' }, 'fingerprint'],
      [{ ...good, template_reference_name: 'a.b' }, 'template_reference_name'],
      [{ ...good, annotations: { 'foo.bar': 'x' } }, 'annotations'],
      [{ ...good, unknown: 1 }, 'unknown'],
      // Without a commit (the CLI always sends one, read from the repository): list artifacts slices `git_commit[:7]`.
      [{ ...good, git_commit: null }, 'git_commit'],
      [{ ...good, git_commit: '' }, 'git_commit'],
      [{ ...good, git_commit: commit.slice(0, 6) }, 'git_commit'],
      [{ ...good, git_commit: undefined }, 'git_commit'],
    ] as const) {
      const answer = await attestArtifact('shop', bad);
      expect(answer.status, field).to.equal(400);
      expect(Object.keys(answer.json.errors).join(' '), field).to.contain(field);
    }
    expect((await attestArtifact('shop', good, server.readToken)).status).to.equal(403);
    expect((await attestArtifact('shop', good, server.otherToken)).status).to.equal(403);
    const organizationId = Number((await server.store.findOrganization('acme'))!.id);
    expect(await server.store.artifactsByFingerprints(organizationId, [sha256('x')])).to.deep.equal([]);
    expect(goDecodeProblems({ status: 'COMPLIANT' }, nullable(artifactStatusAsRead))).to.not.deep.equal([]);
  });
});
