// @database
// @alone: bounds the time health takes to answer under hostile input
/**
 * The Kosli CLI's policy and tag requests, byte for byte as it sends them, and its reading of the
 * answers. Followed: cmd/kosli/createPolicy.go (multipart: field `payload` = `PolicyPayload{name,
 * description, comment, type}` then file `policy_file`; 200 read as "updated"), getPolicy.go and
 * listPolicies.go (`created_at` as a timestamp, `consuming_envs` and `versions` as lists unchecked,
 * the latest version's `policy_yaml` as a string), attachPolicy.go and detachPolicy.go (POST and
 * DELETE `{policy_names: [name]}`, one request per environment), tag.go (PATCH `{set_tags,
 * remove_tags}`), getFlow.go / listFlows.go / getEnvironment.go (`tags` read as a map unchecked).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { Readable } from 'node:stream';
import { startChildServer, type ChildServer } from '../../../../test/hostile/child-server.ts';
import { whileProbingHealth } from '../../../../test/hostile/health-probe.ts';
import { verifyPackage } from '../audit/verify-package.ts';
import { outcome, rewritePackage } from '../audit/package-fixture.ts';
import { cliSucceeds, goDecodeProblems, type GoFormItem, type GoType, sendAsCli, type CliCall } from './go-wire.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/policy-files/${name}`, import.meta.url));
const policyAsRead: GoType = {
  name: 'string',
  description: 'string',
  created_at: 'float64',
  consuming_envs: ['string'],
  versions: [{ policy_yaml: 'string' }],
};
/** `newPolicyForm`: the payload field, then the file part named as the file on disk. */
const policyForm = (payload: Record<string, string>, filename: string, bytes: Uint8Array): GoFormItem[] => [
  { type: 'field', name: 'payload', content: payload },
  { type: 'file', name: 'policy_file', filename, bytes },
];
const payload = (name: string, comment = '') => ({ name, description: '', comment, type: 'env' });

describe('Kosli CLI wire format: policies, attach and detach, tags', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  const send = async (call: Omit<CliCall, 'token'>, expected: number, token = server.token) => {
    const answer = await sendAsCli(server.url, { token, ...call });
    expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.equal(expected);
    return answer;
  };
  const createPolicy = (name: string, file: string, expected: number, comment = '') =>
    send({ method: 'PUT', path: '/api/v2/policies/acme', form: policyForm(payload(name, comment), file, fixture(file)) }, expected);

  it("create policy: the CLI's testdata files, 201 then 200 for a new version; get and list read as the CLI reads them", async () => {
    await createPolicy('prod-requirements', 'test-policy.yml', 201);
    await createPolicy('prod-requirements', 'test-policy-for-control.yml', 200, 'now with a control');
    await createPolicy('control-only', 'test-policy-for-control.yml', 201);
    const got = await send({ method: 'GET', path: '/api/v2/policies/acme/prod-requirements' }, 200);
    expect(goDecodeProblems(got.json, policyAsRead)).to.deep.equal([]);
    expect(got.json.versions.map((v: { version: number; comment: string }) => [v.version, v.comment])).to.deep.equal([
      [1, ''],
      [2, 'now with a control'],
    ]);
    expect(got.json.versions[1].policy_yaml).to.equal(fixture('test-policy-for-control.yml').toString('utf8'));
    expect(got.json.versions[0].sha256).to.match(/^[0-9a-f]{64}$/);
    const listed = await send({ method: 'GET', path: '/api/v2/policies/acme' }, 200);
    expect(goDecodeProblems(listed.json, [policyAsRead])).to.deep.equal([]);
    expect(listed.json.map((p: { name: string }) => p.name)).to.deep.equal(['control-only', 'prod-requirements']);
  });

  it('a policy version is chained and logged like evidence: verification holds and counts it', async () => {
    const before = await server.request('GET', '/api/v2/verify/acme');
    await createPolicy('chained', 'test-policy.yml', 201);
    const after = await server.request('GET', '/api/v2/verify/acme');
    expect(after.body.ok, JSON.stringify(after.body)).to.equal(true);
    expect(after.body.records).to.equal(before.body.records + 1);
    // The audit package of a log that holds policy versions still verifies and proves itself complete.
    await server.store.makeCheckpoints!();
    const exported = await server.request('GET', '/api/v2/log/acme/export', { token: server.readToken });
    const key = (await server.request('GET', '/api/v2/log/acme/key', { token: server.readToken })).body.verifier_key as string;
    const verified = await verifyPackage(() => Readable.from([Buffer.from(exported.bytes)]), key);
    expect([verified.checkpoint.size, verified.completeness.proven]).to.deep.equal([after.body.records, true]);
    // A policy's YAML changed in the package is found offline.
    const changed = await rewritePackage(Buffer.from(exported.bytes), (name, content) => {
      if (!name.endsWith('/policy.json')) return content;
      return Buffer.from(content.toString('utf8').replace('required: true', 'required: false'));
    });
    expect(await outcome(changed, key)).to.equal('record-mismatch records/0/policy.json');
  });

  it('an invalid policy is a 400 naming the field and line, and nothing is stored', async () => {
    const bad = Buffer.from('_schema: https://docs.kosli.com/schemas/policy/v1\nartifacts:\n  attestations:\n    - name: x\n      type: magic\n');
    const answer = await send({ method: 'PUT', path: '/api/v2/policies/acme', form: policyForm(payload('broken'), 'bad.yml', bad) }, 400);
    expect(answer.json.message).to.match(/line 5: artifacts\.attestations\[0\]\.type/);
    expect(answer.json.errors['artifacts.attestations[0].type']).to.match(/^line 5: 'magic' is not a known type/);
    const expression = Buffer.from(
      '_schema: https://docs.kosli.com/schemas/policy/v1\nartifacts:\n  provenance:\n    exceptions:\n      - if: ${{ flow.name }}\n',
    );
    const refused = await send({ method: 'PUT', path: '/api/v2/policies/acme', form: policyForm(payload('broken'), 'bad.yml', expression) }, 400);
    expect(refused.json.errors['artifacts.provenance.exceptions[0].if']).to.match(/line 5: expression 'flow.name'/);
    await send({ method: 'GET', path: '/api/v2/policies/acme/broken' }, 404);
    const missing = await send({ method: 'GET', path: '/api/v2/policies/acme/non-existing' }, 404);
    expect(missing.json.message).to.equal("Policy 'non-existing' does not exist in organization 'acme'");
  });

  it("one organisation's token neither reads nor writes another's policies; a read token cannot create one", async () => {
    await send({ method: 'GET', path: '/api/v2/policies/acme/prod-requirements' }, 403, server.otherToken);
    await send({ method: 'PUT', path: '/api/v2/policies/acme', form: policyForm(payload('x'), 'p.yml', fixture('test-policy.yml')) }, 403, server.otherToken);
    await send({ method: 'PUT', path: '/api/v2/policies/acme', form: policyForm(payload('x'), 'p.yml', fixture('test-policy.yml')) }, 403, server.readToken);
  });

  it('attach-policy and detach-policy: the environment lists its policies, the policy its environments, each change a new snapshot', async () => {
    await send(
      { method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'prod', type: 'server', description: '', require_provenance: false } },
      201,
    );
    const report = { type: 'server', artifacts: [{ digests: { 'app.jar': 'a'.repeat(64) }, creationTimestamp: 1_763_000_000 }] };
    await send({ method: 'PUT', path: '/api/v2/environments/acme/prod/report/server', payload: report }, 201);
    const attach = await send({ method: 'POST', path: '/api/v2/environments/acme/prod/policies', payload: { policy_names: ['prod-requirements'] } }, 200);
    expect(cliSucceeds(attach.status)).to.equal(true);
    await send({ method: 'POST', path: '/api/v2/environments/acme/prod/policies', payload: { policy_names: ['control-only'] } }, 200);
    // Attaching again changes nothing (no snapshot) but is not an error (a re-run CI job).
    await send({ method: 'POST', path: '/api/v2/environments/acme/prod/policies', payload: { policy_names: ['control-only'] } }, 200);
    const environment = await send({ method: 'GET', path: '/api/v2/environments/acme/prod' }, 200);
    expect(environment.json.policies).to.deep.equal(['prod-requirements', 'control-only']);
    const policy = await send({ method: 'GET', path: '/api/v2/policies/acme/prod-requirements' }, 200);
    expect(policy.json.consuming_envs).to.deep.equal(['prod']);
    const latest = await server.request('GET', '/api/v2/environments/acme/prod/snapshots/-1');
    expect([latest.body.snapshot_index, latest.body.artifacts.length]).to.deep.equal([3, 1]);
    await send({ method: 'DELETE', path: '/api/v2/environments/acme/prod/policies', payload: { policy_names: ['prod-requirements'] } }, 200);
    expect((await send({ method: 'GET', path: '/api/v2/environments/acme/prod' }, 200)).json.policies).to.deep.equal(['control-only']);
    expect((await server.request('GET', '/api/v2/environments/acme/prod/snapshots/-1')).body.snapshot_index).to.equal(4);
    expect((await send({ method: 'GET', path: '/api/v2/policies/acme/prod-requirements' }, 200)).json.consuming_envs).to.deep.equal([]);
    await send({ method: 'DELETE', path: '/api/v2/environments/acme/prod/policies', payload: { policy_names: ['prod-requirements'] } }, 400);
    await send({ method: 'POST', path: '/api/v2/environments/acme/prod/policies', payload: { policy_names: ['no-such-policy'] } }, 404);
    await send({ method: 'POST', path: '/api/v2/environments/acme/no-such-env/policies', payload: { policy_names: ['control-only'] } }, 404);
    expect((await server.request('GET', '/api/v2/verify/acme')).body.ok).to.equal(true);
  });

  it('tag flow and tag env: set then remove; flows and environments answer their tags as a map', async () => {
    await send({ method: 'PUT', path: '/api/v2/flows/acme', payload: { name: 'runner', description: '', visibility: 'private' } }, 201);
    await send({ method: 'PATCH', path: '/api/v2/tags/acme/flow/runner', payload: { set_tags: { 'risk-level': 'high', team: 'a' }, remove_tags: [] } }, 200);
    await send({ method: 'PATCH', path: '/api/v2/tags/acme/flows/runner', payload: { set_tags: {}, remove_tags: ['team'] } }, 200);
    const flow = await send({ method: 'GET', path: '/api/v2/flows/acme/runner' }, 200);
    expect(goDecodeProblems(flow.json, { tags: 'map' })).to.deep.equal([]);
    expect(flow.json.tags).to.deep.equal({ 'risk-level': 'high' });
    const flows = await send({ method: 'GET', path: '/api/v2/flows/acme' }, 200);
    expect(flows.json.find((f: { name: string }) => f.name === 'runner').tags).to.deep.equal({ 'risk-level': 'high' });
    for (const type of ['env', 'environment', 'environments']) {
      await send({ method: 'PATCH', path: `/api/v2/tags/acme/${type}/prod`, payload: { set_tags: { [type]: 'yes', tier: '1' }, remove_tags: [] } }, 200);
    }
    await send({ method: 'PATCH', path: '/api/v2/tags/acme/env/prod', payload: { set_tags: {}, remove_tags: ['env', 'environment'] } }, 200);
    expect((await send({ method: 'GET', path: '/api/v2/environments/acme/prod' }, 200)).json.tags).to.deep.equal({ environments: 'yes', tier: '1' });
    await send({ method: 'PATCH', path: '/api/v2/tags/acme/flow/no-such-flow', payload: { set_tags: { a: 'b' }, remove_tags: [] } }, 404);
    await send({ method: 'PATCH', path: '/api/v2/tags/acme/control/c1', payload: { set_tags: { a: 'b' }, remove_tags: [] } }, 400);
    await send({ method: 'PATCH', path: '/api/v2/tags/acme/flow/runner', payload: { set_tags: { a: 'b' }, remove_tags: [] } }, 403, server.otherToken);
  });

  describe('hostile policies: the server keeps answering', () => {
    // A server process of its own: the 9 MiB upload is built and sent on the test's event loop, which an in-process server would share with the probes.
    let child: ChildServer;
    before(async () => (child = await startChildServer()));
    after(() => child.close());
    const hostile = async (yaml: string) => {
      const answer = await sendAsCli(child.url, {
        token: child.token,
        method: 'PUT',
        path: '/api/v2/policies/acme',
        form: policyForm(payload('hostile'), 'h.yml', Buffer.from(yaml)),
      });
      expect(answer.status, answer.text).to.equal(400);
      return answer;
    };
    const header = '_schema: https://docs.kosli.com/schemas/policy/v1\n';
    const cases: Array<[string, string, RegExp]> = [
      ['huge', `${header}# ${'x'.repeat(9 * 1024 * 1024)}\n`, /may be at most/],
      ['deeply nested', `${header}artifacts: ${'['.repeat(60_000)}\n`, /nest at most/],
      ['many keys', `${header}${Array.from({ length: 6_000 }, (_, i) => `k${i}: 1`).join('\n')}\n`, /at most .* keys/],
      [
        'a deep expression',
        `${header}artifacts:\n  attestations:\n    - type: junit\n      if: \${{ ${'('.repeat(1500)}true${')'.repeat(1500)} }}\n`,
        /at most/,
      ],
      [
        'a backtracking pattern',
        `${header}artifacts:\n  attestations:\n    - type: junit\n      if: \${{ matches(artifact.name, "(?=a)(a+)+$") }}\n`,
        /invalid pattern/,
      ],
    ];
    for (const [what, yaml, message] of cases) {
      it(`${what}: a 400 naming the problem, health answering within 1 s`, async () => {
        const { result, slowestMs } = await whileProbingHealth(child, () => hostile(yaml));
        expect(JSON.stringify(result.json)).to.match(message);
        expect(slowestMs).to.be.below(1000);
      });
    }
  });
});
