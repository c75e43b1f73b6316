// @database
/**
 * Allow-lists, controls and snapshot compliance from attached policies, as the Kosli CLI
 * (kosli-dev/cli 71ac0f30) sends and reads them: allowArtifact.go (PUT /allowlists/{org}/{env}
 * `AllowlistPayload{artifact_fingerprint, artifact_name, description}`, the answer unread),
 * createControl.go (POST /controls/{org} `ControlPayload{identifier, name, description
 * omitempty}`, no retry on 409), getControl.go and listControls.go (a map printed field by field;
 * `listControlsResponse{controls, page, total_pages, total_count}`), assertSnapshot.go (GET
 * /snapshots/{org}/{env}/{int}, `compliant` read as a bool: false is exit 1, "NON-COMPLIANT").
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { signInTo } from '../../../../test/support/console-story.ts';
import { countingStore } from '../../../../test/support/counting-store.ts';
import { fleetArtifact, fleetImage, registryImage, registryPod, sha256Of } from '../../../../test/support/fleet.ts';
import { TrailEvaluator } from '../domain/evaluate.ts';
import { judgeRunning } from '../domain/snapshot-judgement.ts';
import { goDecodeProblems, goQuery, sendAsCli, type CliCall, type GoType } from './go-wire.ts';

const fingerprint = sha256Of;
const image = registryImage;
const pod = registryPod;
const policyFile = (body: string) => Buffer.from(`_schema: https://kosli.com/schemas/policy/environment/v1\n\nartifacts:\n${body}`);
const listControlsAsRead: GoType = { controls: ['map'], page: 'int', total_pages: 'int', total_count: 'int' };
const snapshotAsRead: GoType = { index: 'int', compliant: 'bool', artifacts: [{ name: 'string', compliant: 'bool' }] };

/** What assertSnapshot.go does with the answer: exit 0 and "COMPLIANT", or exit 1 and "NON-COMPLIANT" (any other status: exit 1 with the message). */
const assertOutcome = (status: number, json: { compliant: boolean }) => (status === 200 ? (json.compliant ? 'COMPLIANT' : 'NON-COMPLIANT') : `error ${status}`);

function helpers(server: () => TestServer) {
  const send = (call: Omit<CliCall, 'token'>, token = server().token) => sendAsCli(server().url, { token, ...call });
  const ok = async (call: Omit<CliCall, 'token'>, token?: string) => {
    const answer = await send(call, token);
    expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.be.oneOf([200, 201]);
    return answer;
  };
  const createPolicy = (name: string, bytes: Buffer) =>
    ok({
      method: 'PUT',
      path: '/api/v2/policies/acme',
      form: [
        { type: 'field', name: 'payload', content: { name, description: '', comment: '', type: 'env' } },
        { type: 'file', name: 'policy_file', filename: `${name}.yml`, bytes },
      ],
    });
  const attach = (env: string, name: string) => ok({ method: 'POST', path: `/api/v2/environments/acme/${env}/policies`, payload: { policy_names: [name] } });
  const allow = (env: string, name: string, token?: string) =>
    send(
      {
        method: 'PUT',
        path: `/api/v2/allowlists/acme/${env}`,
        payload: { artifact_fingerprint: fingerprint(name), artifact_name: image(name), description: 'vendor image' },
      },
      token,
    );
  return { send, ok, createPolicy, attach, allow };
}

describe('Kosli CLI wire format: allow artifact and controls', () => {
  let server: TestServer;
  const h = helpers(() => server);
  before(async () => {
    server = await startTestServer();
    await h.ok({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'prod', type: 'K8S', description: '', require_provenance: false } });
  });
  after(() => server.close());

  it('allow artifact: 201 with the allowance as sent; listed with who allowed it; bad input 400, an unknown or foreign environment 404', async () => {
    const answer = await h.allow('prod', 'vendor:1');
    expect(answer.status, answer.text).to.equal(201);
    expect(answer.json).to.deep.equal({ artifact_fingerprint: fingerprint('vendor:1'), artifact_name: image('vendor:1'), description: 'vendor image' });
    const listed = await h.ok({ method: 'GET', path: '/api/v2/allowlists/acme' });
    expect(listed.json).to.have.length(1);
    expect(listed.json[0]).to.include({ environment_name: 'prod', fingerprint: fingerprint('vendor:1'), description: 'vendor image' });
    expect(listed.json[0].user_name).to.match(/token /);
    const bad = await h.send({
      method: 'PUT',
      path: '/api/v2/allowlists/acme/prod',
      payload: { artifact_fingerprint: 'xyz', artifact_name: 'a', description: 'b' },
    });
    expect(bad.status).to.equal(400);
    expect(bad.json.errors).to.have.property('artifact_fingerprint');
    expect((await h.allow('nowhere', 'vendor:1')).status).to.equal(404);
    // Another organisation's token neither writes nor reads acme's allow-list.
    expect((await h.allow('prod', 'vendor:2', server.otherToken)).status).to.be.oneOf([403, 404]);
    expect((await h.send({ method: 'GET', path: '/api/v2/allowlists/acme' }, server.otherToken)).status).to.be.oneOf([403, 404]);
  });

  it('create control: 201, then 409 for the same identifier; get and list read as the CLI prints them; a bad identifier 400', async () => {
    const created = await h.send({
      method: 'POST',
      path: '/api/v2/controls/acme',
      payload: { identifier: 'sdlc-01', name: 'Code review', description: 'Four eyes' },
    });
    expect(created.status, created.text).to.equal(201);
    await h.ok({ method: 'POST', path: '/api/v2/controls/acme', payload: { identifier: 'sec.02', name: 'Scanning' } });
    const again = await h.send({ method: 'POST', path: '/api/v2/controls/acme', payload: { identifier: 'sdlc-01', name: 'Other' } });
    expect(again.status).to.equal(409);
    expect(again.json.message).to.match(/already exists/);
    const invalid = await h.send({ method: 'POST', path: '/api/v2/controls/acme', payload: { identifier: '-x', name: 'Bad' } });
    expect(invalid.status).to.equal(400);
    await h.createPolicy('reviewed', policyFile('  attestations:\n    - type: decision\n      for_control: sdlc-01\n'));
    const got = await h.ok({ method: 'GET', path: '/api/v2/controls/acme/sdlc-01' });
    expect(got.json).to.include({ identifier: 'sdlc-01', name: 'Code review', description: 'Four eyes', version: 1, archived: false });
    expect(got.json.created_at).to.be.a('number');
    expect(got.json.policies_referencing).to.deep.equal(['reviewed']);
    expect((await h.send({ method: 'GET', path: '/api/v2/controls/acme/none' })).status).to.equal(404);
    const query = goQuery([
      ['page', '1'],
      ['per_page', '1'],
    ]);
    const page = await h.ok({ method: 'GET', path: `/api/v2/controls/acme?${query}` });
    expect(goDecodeProblems(page.json, listControlsAsRead)).to.deep.equal([]);
    expect([page.json.controls.map((c: { identifier: string }) => c.identifier), page.json.total_pages, page.json.total_count]).to.deep.equal([
      ['sdlc-01'],
      2,
      2,
    ]);
    const searched = await h.ok({
      method: 'GET',
      path: `/api/v2/controls/acme?${goQuery([
        ['page', '1'],
        ['per_page', '20'],
        ['search', 'SCAN'],
        ['sort_direction', 'desc'],
      ])}`,
    });
    expect(searched.json.controls.map((c: { identifier: string }) => c.identifier)).to.deep.equal(['sec.02']);
    const archived = await h.ok({
      method: 'GET',
      path: `/api/v2/controls/acme?${goQuery([
        ['page', '1'],
        ['per_page', '20'],
        ['archived', 'true'],
      ])}`,
    });
    expect(archived.json.total_count).to.equal(0);
    expect((await h.send({ method: 'GET', path: '/api/v2/controls/acme/sdlc-01' }, server.otherToken)).status).to.be.oneOf([403, 404]);
  });
});

describe('Kosli CLI wire format: snapshot compliance from the attached policies, assert snapshot', () => {
  let server: TestServer;
  const h = helpers(() => server);
  const snapshot = async (expected: 'COMPLIANT' | 'NON-COMPLIANT', path = '/api/v2/snapshots/acme/prod/-1') => {
    const answer = await h.send({ method: 'GET', path });
    expect(goDecodeProblems(answer.json, snapshotAsRead)).to.deep.equal([]);
    expect(assertOutcome(answer.status, answer.json), answer.text).to.equal(expected);
    return answer.json;
  };
  const verdicts = (json: { artifacts: { name: string; compliant: boolean; annotation: { now: number } }[] }) =>
    Object.fromEntries(json.artifacts.filter((a) => a.annotation.now > 0).map((a) => [a.name.replace('registry.acme.example/', ''), a.compliant]));

  before(async () => {
    server = await startTestServer();
    await h.ok({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'prod', type: 'K8S', description: '', require_provenance: false } });
    // shop:1 and old:1 are reported in trails with a compliant scan; api:1 with a failing one;
    // old:1's trail fails on another attestation (lint); web:1 nobody reported.
    for (const [trail, name, scan, lint] of [
      ['b1', 'shop:1', true, true],
      ['b2', 'api:1', false, true],
      ['b3', 'old:1', true, false],
    ] as const) {
      await h.ok({ method: 'PUT', path: '/api/v2/trails/acme/shop', form: [{ type: 'field', name: 'data_json', content: { name: trail, description: '' } }] });
      await h.ok({
        method: 'POST',
        path: '/api/v2/artifacts/acme/shop',
        payload: {
          fingerprint: fingerprint(name),
          filename: name,
          git_commit: 'c'.repeat(40),
          build_url: 'https://ci.example/1',
          commit_url: '',
          template_reference_name: 'app',
          trail_name: trail,
        },
      });
      const attest = (content: Record<string, unknown>) =>
        h.ok({ method: 'POST', path: `/api/v2/attestations/acme/shop/trail/${trail}/generic`, form: [{ type: 'field', name: 'data_json', content }] });
      await attest({ artifact_fingerprint: fingerprint(name), attestation_name: 'scan', is_compliant: scan });
      await attest({ attestation_name: 'lint', is_compliant: lint });
    }
    const pods = ['shop:1', 'api:1', 'old:1', 'web:1'].map((name, i) => pod(`p${i}`, name));
    await h.ok({ method: 'PUT', path: '/api/v2/environments/acme/prod/report/K8S', payload: { artifacts: pods } });
  });
  after(() => server.close());

  it('no policy attached: today’s rule (a compliant trail vouches for the artifact)', async () => {
    const json = await snapshot('NON-COMPLIANT');
    expect(verdicts(json)).to.deep.equal({ 'shop:1': true, 'api:1': false, 'old:1': false, 'web:1': false });
    expect(json.applied_policies).to.deep.equal([]);
  });

  it('attached: each running artifact judged by the policy, an exception waiving trail compliance, an allow-listed one passing; recorded everywhere', async () => {
    await h.createPolicy(
      'prod-rules',
      policyFile(
        '  provenance:\n    required: true\n  trail-compliance:\n    required: true\n    exceptions:\n      - if: ${{ artifact.name == "registry.acme.example/old:1" }}\n' +
          '  attestations:\n    - name: scan\n      type: generic\n',
      ),
    );
    await h.attach('prod', 'prod-rules');
    const judged = await snapshot('NON-COMPLIANT');
    expect(judged.index).to.equal(2);
    // api:1 fails its scan; old:1's failing trail is waived; web:1 has no provenance.
    expect(verdicts(judged)).to.deep.equal({ 'shop:1': true, 'api:1': false, 'old:1': true, 'web:1': false });
    expect(judged.applied_policies.map((p: { name: string; version: number }) => [p.name, p.version])).to.deep.equal([['prod-rules', 1]]);
    expect(judged.artifact_compliance_count).to.deep.equal({ compliant: 2, non_compliant: 2 });
    // The console's environment page judges the same: old:1 shows as shop:1 does, api:1 not.
    const cookie = await signInTo(server, server.readToken);
    const html = await (await fetch(`${server.url}/ui/acme/environments/prod`, { headers: { cookie } })).text();
    const rowOf = (name: string) => new RegExp(`<tr data-artifact="${image(name)}">.*?</tr>`).exec(html)?.[0] ?? '';
    // The page speaks of the policies: old:1 passes by its waiver, api:1 does not.
    expect([rowOf('shop:1'), rowOf('old:1')].map((row) => row.includes('PASSES ITS POLICIES'))).to.deep.equal([true, true]);
    expect(rowOf('api:1')).to.include('FAILS ITS POLICIES');

    // The allow-list lets web:1 pass; api:1 stops running: the next report is compliant.
    expect((await h.allow('prod', 'web:1')).status).to.equal(201);
    const pods = ['shop:1', 'old:1', 'web:1'].map((name, i) => pod(`q${i}`, name));
    await h.ok({ method: 'PUT', path: '/api/v2/environments/acme/prod/report/K8S', payload: { artifacts: pods } });
    const now = await snapshot('COMPLIANT');
    expect(verdicts(now)).to.deep.equal({ 'shop:1': true, 'old:1': true, 'web:1': true });
    // assert snapshot of #2 (api:1 still ran there) and of ~1 (the same), as the CLI sends them.
    await snapshot('NON-COMPLIANT', '/api/v2/snapshots/acme/prod/2');
    await snapshot('NON-COMPLIANT', '/api/v2/snapshots/acme/prod/-2');

    // list snapshots: each as judged when made (1 before the policy by provenance, 2 at attach, 3 at the report).
    const list = await h.ok({
      method: 'GET',
      path: `/api/v2/snapshots/acme/prod?${goQuery([
        ['page', '1'],
        ['per_page', '15'],
        ['interval', ''],
        ['reverse', 'false'],
      ])}`,
    });
    expect(list.json.map((s: { index: number; compliant: boolean }) => [s.index, s.compliant])).to.deep.equal([
      [3, true],
      [2, false],
      [1, false],
    ]);
    const environment = await h.ok({ method: 'GET', path: '/api/v2/environments/acme/prod' });
    expect(environment.json.state).to.equal(true);
    const events = await h.ok({ method: 'GET', path: '/api/v2/environments/acme/prod/events' });
    const started = events.json.find((e: { snapshot_index: number }) => e.snapshot_index === 3);
    expect(started, JSON.stringify(events.json)).to.not.equal(undefined);
  });

  it('detaching makes a new snapshot judged by provenance again', async () => {
    await h.ok({ method: 'DELETE', path: '/api/v2/environments/acme/prod/policies', payload: { policy_names: ['prod-rules'] } });
    const json = await snapshot('NON-COMPLIANT');
    // old:1's trail fails lint; web:1 is still allowed.
    expect(verdicts(json)).to.deep.equal({ 'shop:1': true, 'old:1': false, 'web:1': true });
    expect((await h.ok({ method: 'GET', path: '/api/v2/environments/acme/prod' })).json.state).to.equal(false);
  });
});

describe('Snapshot compliance from policies: a 1,000-pod snapshot against three policies', function () {
  this.timeout(180_000);
  let server: TestServer;
  const h = helpers(() => server);
  const trails = 50;
  const images = 600;
  const reported = 550;
  /** Compliant: image 1 allow-listed; else reported, in an even trail (its `checks` compliant). */
  const expected = (k: number) => k === 1 || (k < reported && (k % trails) % 2 === 0);

  before(async () => {
    server = await startTestServer();
    await h.ok({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'fleet', type: 'K8S', description: '', require_provenance: false } });
    for (let t = 0; t < trails; t++) {
      await h.ok({
        method: 'PUT',
        path: '/api/v2/trails/acme/fleet',
        form: [{ type: 'field', name: 'data_json', content: { name: `t${t}`, description: '' } }],
      });
      await h.ok({
        method: 'POST',
        path: `/api/v2/attestations/acme/fleet/trail/t${t}/generic`,
        form: [{ type: 'field', name: 'data_json', content: { attestation_name: 'checks', is_compliant: t % 2 === 0 } }],
      });
    }
    const organizationId = Number((await server.store.findOrganization('acme'))!.id);
    for (let k = 0; k < reported; k++) await server.store.appendArtifact(fleetArtifact(organizationId, k, trails));
    await h.createPolicy('provenance', policyFile('  provenance:\n    required: true\n'));
    await h.createPolicy('checks', policyFile('  attestations:\n    - name: checks\n      type: generic\n'));
    await h.createPolicy(
      'trails',
      policyFile('  trail-compliance:\n    required: true\n    exceptions:\n      - if: ${{ matches(artifact.name, "^none:") }}\n'),
    );
    for (const name of ['provenance', 'checks', 'trails']) await h.attach('fleet', name);
    await h.send({
      method: 'PUT',
      path: '/api/v2/allowlists/acme/fleet',
      payload: { artifact_fingerprint: fingerprint(fleetImage(1)), artifact_name: 'x', description: 'y' },
    });
    const pods = Array.from({ length: 1000 }, (_, i) => pod(`pod-${i}`, fleetImage(i % images)));
    await h.ok({ method: 'PUT', path: '/api/v2/environments/acme/fleet/report/K8S', payload: { artifacts: pods } });
  });
  after(() => server.close());

  it('every artifact judged as expected; the snapshot non-compliant, as recorded at the report', async () => {
    const answer = await h.ok({ method: 'GET', path: '/api/v2/snapshots/acme/fleet/-1' });
    expect(answer.json.artifacts).to.have.length(images);
    const wrong = answer.json.artifacts.filter((a: { name: string; compliant: boolean }) => a.compliant !== expected(Number(/img-(\d+):/.exec(a.name)![1])));
    expect(wrong.map((a: { name: string }) => a.name)).to.deep.equal([]);
    expect(answer.json.compliant).to.equal(false);
    // In the order attached, as `assert artifact --environment` evaluates them.
    expect(answer.json.applied_policies.map((p: { name: string }) => p.name)).to.deep.equal(['provenance', 'checks', 'trails']);
    const list = await h.ok({ method: 'GET', path: '/api/v2/snapshots/acme/fleet?page=1&per_page=1' });
    expect(list.json[0].compliant).to.equal(false);
  });

  it('judges in batches: the same store calls for 600 fingerprints as for 6 (reported and not)', async () => {
    const count = async (images: number[]) => {
      const { store: counted, calls } = countingStore(server.store);
      const organizationId = Number((await server.store.findOrganization('acme'))!.id);
      const environment = (await server.store.findEnvironment(organizationId, 'acme', 'fleet'))!;
      const now = Date.now() / 1000;
      const running = images.map((k) => ({ name: image(fleetImage(k)), fingerprint: fingerprint(fleetImage(k)) }));
      const judged = await judgeRunning(counted, new TrailEvaluator(counted, now), { organizationId, environment, running, now });
      expect(judged.evidence.get(fingerprint(fleetImage(2)))?.compliant).to.equal(true);
      expect(judged.evidence.get(fingerprint(fleetImage(3)))?.compliant).to.equal(false);
      return calls.length;
    };
    expect(await count(Array.from({ length: 600 }, (_, k) => k))).to.equal(await count([0, 1, 2, 3, 560, 599]));
  });
});
