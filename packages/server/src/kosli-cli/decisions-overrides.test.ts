// @database
/**
 * The Kosli CLI's `attest decision` and `attest override`, as it sends them (kosli-dev/cli 71ac0f30:
 * attestDecision.go: multipart `DecisionAttestationPayload` to `.../trail/{t}/system` with
 * `type_name: "decision"`, `control` and `attestation_data.is_compliant`; attestOverride.go, hidden
 * since cli#873: JSON `OverrideAttestationPayload` to `.../trail/{t}/override` with `reason`,
 * `new_compliance_status` and `original_attestation_type`, no attachment). A name `api.scan` is
 * sent as `target_artifacts: ["api"]` and `attestation_name: "scan"` (parseAttestationNameTemplate).
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { commitInfo, flowWithTemplateForm, goAttestationFields, repoInfoIn } from './ci-payloads.ts';
import { goDecodeProblems, sendAsCli, type CliCall, type GoType } from './go-wire.ts';

const sha = '0615f4e3d2c1b0a98f3c1e0b9a7d6c5b4a392817';
const GoAttestation: GoType = goAttestationFields;
const template =
  'version: 1\ntrail:\n  attestations:\n  - name: review\n    type: generic\n  - name: gate\n    type: decision\n' +
  '  artifacts:\n  - name: api\n    attestations:\n    - name: scan\n      type: snyk\n';

describe('Kosli CLI wire format: attest decision and attest override', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await send(
      {
        method: 'PUT',
        path: '/api/v2/flows/acme/template_file',
        form: flowWithTemplateForm('gated', template),
      },
      201,
    );
    await send({ method: 'PUT', path: '/api/v2/trails/acme/gated', form: [{ type: 'field', name: 'data_json', content: { name: sha } }] }, 201);
  });
  after(() => server.close());

  const send = async (call: Omit<CliCall, 'token'>, expected: number) => {
    const answer = await sendAsCli(server.url, { token: server.token, ...call });
    expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.equal(expected);
    return answer;
  };
  const common = (name: string, targets?: string[]) => ({
    git_commit_info: commitInfo(sha, 'github'),
    repo_info: repoInfoIn('github'),
    attestation_name: name,
    ...(targets ? { target_artifacts: targets } : {}),
  });
  const multipart = (kind: string, content: unknown, expected: number) =>
    send({ method: 'POST', path: `/api/v2/attestations/acme/gated/trail/${sha}/${kind}`, form: [{ type: 'field', name: 'data_json', content }] }, expected);
  const decision = (name: string, compliant: boolean, expected = 201) =>
    multipart('system', { ...common(name), type_name: 'decision', control: 'RCTL-043', attestation_data: { is_compliant: compliant } }, expected);
  const override = (payload: Record<string, unknown>, expected: number, trail = sha) =>
    send({ method: 'POST', path: `/api/v2/attestations/acme/gated/trail/${trail}/override`, payload }, expected);
  const compliance = async () => (await send({ method: 'GET', path: `/api/v2/trails/acme/gated/${sha}` }, 200)).json.compliance_status;
  const trailStatus = async (name: string) => (await compliance()).attestations_statuses.find((s: { attestation_name: string }) => s.attestation_name === name);
  const emptySnyk = { schema_version: 1, tool: { name: 'Snyk Container', version: '' }, results: [{ high_count: 1, medium_count: 0, low_count: 0 }] };

  it('attest decision: a `decision` on its control, compliant as attestation_data.is_compliant says; the template asks for it by type', async () => {
    await decision('gate', false);
    expect(await trailStatus('gate')).to.deep.include({ attestation_type: 'decision', status: 'COMPLETE', is_compliant: false });
    await decision('gate', true);
    const gate = await trailStatus('gate');
    expect(gate).to.deep.include({ attestation_type: 'decision', is_compliant: true });
    const read = (await send({ method: 'GET', path: `/api/v2/attestations/acme?attestation_id=${gate.attestation_id}` }, 200)).json;
    expect(goDecodeProblems(read.data, [GoAttestation])).to.deep.equal([]);
    expect(read.data[0]).to.deep.include({ type_name: 'decision', control: 'RCTL-043', attestation_data: { is_compliant: true } });
    await multipart('system', { ...common('gate'), type_name: 'generic', control: 'RCTL-043', attestation_data: { is_compliant: true } }, 400);
    await multipart('system', { ...common('gate'), type_name: 'decision', attestation_data: { is_compliant: true } }, 400);
    await multipart('system', { ...common('gate'), type_name: 'decision', control: 'RCTL-043', attestation_data: {} }, 400);
  });

  it('attest override: the named attestation takes the new verdict and the trail follows; the original and the override both stay, the override naming what it overrode and why', async () => {
    await multipart('generic', { ...common('review'), is_compliant: false }, 201);
    expect((await compliance()).is_compliant).to.equal(false);
    const original = await trailStatus('review');
    await override({ ...common('review'), reason: 'approved out-of-band by the CAB', new_compliance_status: true, original_attestation_type: 'generic' }, 201);
    const overridden = await trailStatus('review');
    // It answers for the template's `generic` requirement.
    expect(overridden).to.deep.include({ attestation_type: 'generic', status: 'COMPLETE', is_compliant: true });
    expect(overridden.attestation_id).to.not.equal(original.attestation_id);
    const detail = (await send({ method: 'GET', path: `/api/v2/attestations/acme?attestation_id=${overridden.attestation_id}` }, 200)).json.data[0];
    expect(detail).to.deep.include({
      attestation_type: 'override:generic',
      is_compliant: true,
      reason: 'approved out-of-band by the CAB',
      new_compliance_status: true,
      original_attestation_type: 'generic',
      overridden_attestation_id: original.attestation_id,
      overridden_compliance: false,
    });
    const both = (await send({ method: 'GET', path: `/api/v2/attestations/acme/gated/trail/${sha}/review` }, 200)).json;
    expect(goDecodeProblems(both, [GoAttestation])).to.deep.equal([]);
    expect(
      both.map((a: { attestation_type: string; is_compliant: boolean; is_latest: boolean }) => [a.attestation_type, a.is_compliant, a.is_latest]),
    ).to.deep.equal([
      ['generic', false, false],
      ['override:generic', true, true],
    ]);
    // An override of an override names the type it stands as.
    await override({ ...common('review'), reason: 'CAB approval withdrawn', new_compliance_status: false, original_attestation_type: 'generic' }, 201);
    expect(await trailStatus('review')).to.deep.include({ is_compliant: false });
  });

  it('attest override of an artifact’s attestation (api.scan): the artifact’s status follows', async () => {
    await multipart('snyk', { ...common('scan', ['api']), snyk_results: emptySnyk }, 201);
    expect((await compliance()).artifacts_statuses.api.status).to.equal('NON-COMPLIANT');
    // Trail-level: there is no trail-level `scan` to override.
    await override({ ...common('scan'), reason: 'false positive', new_compliance_status: true, original_attestation_type: 'snyk' }, 404);
    await override({ ...common('scan', ['api']), reason: 'false positive', new_compliance_status: true, original_attestation_type: 'snyk' }, 201);
    const api = (await compliance()).artifacts_statuses.api;
    // Its attestations all compliant now; the artifact itself is not reported yet (the next test reports it).
    expect(api.status).to.equal('MISSING');
    expect(api.attestations_statuses[0]).to.deep.include({ attestation_name: 'scan', attestation_type: 'snyk', is_compliant: true });
  });

  it('get attestation NAME --fingerprint: the attestations of the name about the artifact (its template name or its fingerprint), as getAttestation.go decodes them', async () => {
    const fingerprint = 'a'.repeat(64);
    // `kosli attest artifact` (attestArtifact.go's payload) reports it as the template's `api`.
    await send(
      {
        method: 'POST',
        path: '/api/v2/artifacts/acme/gated',
        payload: {
          fingerprint,
          filename: 'api.tgz',
          git_commit: sha,
          build_url: 'https://ci.example/1',
          commit_url: `https://github.com/acme/shop/commit/${sha}`,
          template_reference_name: 'api',
          trail_name: sha,
        },
      },
      201,
    );
    await multipart('snyk', { ...common('scan'), artifact_fingerprint: fingerprint, snyk_results: { ...emptySnyk, results: [] } }, 201);
    const read = await send({ method: 'GET', path: `/api/v2/attestations/acme/gated/artifact/${fingerprint}/scan` }, 200);
    expect(goDecodeProblems(read.json, [GoAttestation])).to.deep.equal([]);
    expect(read.json.map((a: { attestation_type: string; is_compliant: boolean }) => [a.attestation_type, a.is_compliant])).to.deep.equal([
      ['snyk', false],
      ['override:snyk', true],
      ['snyk', true],
    ]);
    await send({ method: 'GET', path: `/api/v2/attestations/acme/gated/artifact/${fingerprint}/review` }, 404);
    await send({ method: 'GET', path: `/api/v2/attestations/acme/gated/artifact/${'b'.repeat(64)}/scan` }, 404);
    await send({ method: 'GET', path: `/api/v2/attestations/acme/no-such-flow/artifact/${fingerprint}/scan` }, 404);
    await send({ method: 'GET', path: `/api/v2/attestations/acme/gated/artifact/xyz/scan` }, 400);
    const foreign = await sendAsCli(server.url, {
      method: 'GET',
      path: `/api/v2/attestations/acme/gated/artifact/${fingerprint}/scan`,
      token: server.otherToken,
    });
    expect(foreign.status).to.be.oneOf([401, 403]);
  });

  it('attest override refuses what it cannot name: another type (400), no such attestation or trail (404), no reason (400); nothing stored', async () => {
    const before = (await server.attestations('gated', sha)).length;
    const body = { ...common('review'), reason: 'r', new_compliance_status: true, original_attestation_type: 'junit' };
    const wrongType = await override(body, 400);
    expect(wrongType.json.errors.original_attestation_type).to.equal("must be 'generic'");
    await override({ ...body, attestation_name: 'never', original_attestation_type: 'generic' }, 404);
    await override({ ...body, original_attestation_type: 'generic' }, 404, 'no-such-trail');
    await override({ ...body, original_attestation_type: 'override:generic' }, 400);
    await override({ ...body, reason: '', original_attestation_type: 'generic' }, 400);
    const { reason: _, ...noReason } = body;
    await override({ ...noReason, original_attestation_type: 'generic' }, 400);
    expect((await server.attestations('gated', sha)).length).to.equal(before);
    const foreign = await sendAsCli(server.url, {
      method: 'POST',
      path: `/api/v2/attestations/acme/gated/trail/${sha}/override`,
      token: server.otherToken,
      payload: { ...body, original_attestation_type: 'generic' },
    });
    expect(foreign.status).to.be.oneOf([401, 403]);
    expect((await server.attestations('gated', sha)).length).to.equal(before);
  });
});
