// @database
/**
 * Snapshot verdicts as records: with policies attached, each running artifact's verdict is a
 * record in the organisation's log, the same record `kosli assert artifact --environment` makes
 * (assertArtifact.go reads `log_index`-free fields; getSnapshot.go and assertSnapshot.go ignore
 * the new `verdict_log_index`), kept once per distinct verdict, re-derived by verify-package.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { verifyPackage } from '../audit/verify-package.ts';
import { opener, outcome, rewritePackage } from '../audit/package-fixture.ts';
import { registryImage, registryPod, sha256Of } from '../../../../test/support/fleet.ts';
import { canonicalJson } from '../store/queries/chain.ts';
import { goDecodeProblems, sendAsCli, type CliCall, type GoType } from './go-wire.ts';

const fingerprint = sha256Of;
const image = registryImage;
const pod = registryPod;
const snapshotAsRead: GoType = { index: 'int', compliant: 'bool', artifacts: [{ name: 'string', compliant: 'bool' }] };
const policy =
  '_schema: https://kosli.com/schemas/policy/environment/v1\n\nartifacts:\n  provenance:\n    required: true\n  attestations:\n    - name: scan\n      type: generic\n';

interface SnapshotArtifact {
  name: string;
  fingerprint: string;
  compliant: boolean;
  verdict_log_index: number | null;
  annotation: { now: number };
}

describe('Snapshot verdicts: each running artifact judged by policies is a record anyone can re-check', function () {
  this.timeout(120_000);
  let server: TestServer;
  let organizationId: number;
  const cli = (call: Omit<CliCall, 'token'>, token = server.token) => sendAsCli(server.url, { token, ...call });
  const ok = async (call: Omit<CliCall, 'token'>, token?: string) => {
    const answer = await cli(call, token);
    expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.be.oneOf([200, 201]);
    return answer;
  };
  const attestScan = (trail: string, name: string, compliant: boolean) =>
    ok({
      method: 'POST',
      path: `/api/v2/attestations/acme/shop/trail/${trail}/generic`,
      form: [{ type: 'field', name: 'data_json', content: { artifact_fingerprint: fingerprint(name), attestation_name: 'scan', is_compliant: compliant } }],
    });
  const report = (names: string[]) =>
    ok({ method: 'PUT', path: '/api/v2/environments/acme/prod/report/K8S', payload: { artifacts: names.map((n, i) => pod(`p${i}`, n)) } });
  const snapshot = async (token?: string) => {
    const answer = await ok({ method: 'GET', path: '/api/v2/snapshots/acme/prod/-1' }, token);
    expect(goDecodeProblems(answer.json, snapshotAsRead)).to.deep.equal([]);
    const running: SnapshotArtifact[] = answer.json.artifacts.filter((a: SnapshotArtifact) => a.annotation.now > 0);
    return Object.fromEntries(running.map((a) => [a.name.replace(image(''), ''), a]));
  };
  const recorded = async () => (await server.store.listVerdicts(organizationId, { offset: 0, limit: 100 })).total;
  const exported = async () => {
    await server.store.makeCheckpoints!();
    const bytes = Buffer.from((await server.request('GET', '/api/v2/log/acme/export', { token: server.readToken })).bytes);
    const key = (await server.request('GET', '/api/v2/log/acme/key', { token: server.readToken })).body.verifier_key as string;
    return { bytes, key };
  };

  before(async () => {
    server = await startTestServer();
    organizationId = Number((await server.store.findOrganization('acme'))!.id);
    await ok({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'prod', type: 'K8S', description: '', require_provenance: false } });
    for (const [trail, name, scan] of [
      ['b1', 'shop:1', true],
      ['b2', 'api:1', false],
    ] as const) {
      await ok({ method: 'PUT', path: '/api/v2/trails/acme/shop', form: [{ type: 'field', name: 'data_json', content: { name: trail, description: '' } }] });
      await ok({
        method: 'POST',
        path: '/api/v2/artifacts/acme/shop',
        payload: {
          fingerprint: fingerprint(name),
          filename: image(name),
          git_commit: 'c'.repeat(40),
          build_url: 'https://ci.example/1',
          commit_url: '',
          template_reference_name: 'app',
          trail_name: trail,
        },
      });
      await attestScan(trail, name, scan);
    }
    await report(['shop:1', 'api:1', 'web:1']);
  });
  after(() => server.close());

  it('no policy attached: no verdict recorded, and none named', async () => {
    const running = await snapshot();
    expect(Object.values(running).map((a) => a.verdict_log_index)).to.deep.equal([null, null, null]);
    expect(await recorded()).to.equal(0);
  });

  it('attaching records one verdict per running artifact, each the record `assert artifact --environment` answers', async () => {
    await ok({
      method: 'PUT',
      path: '/api/v2/policies/acme',
      form: [
        { type: 'field', name: 'payload', content: { name: 'gate', description: '', comment: '', type: 'env' } },
        { type: 'file', name: 'policy_file', filename: 'gate.yml', bytes: Buffer.from(policy) },
      ],
    });
    await ok({ method: 'POST', path: '/api/v2/environments/acme/prod/policies', payload: { policy_names: ['gate'] } });
    // At attach: shop:1, api:1 and web:1 (no provenance) each judged, each a record.
    expect(await recorded()).to.equal(3);
    const running = await snapshot();
    expect(Object.fromEntries(Object.entries(running).map(([n, a]) => [n, a.compliant]))).to.deep.equal({ 'shop:1': true, 'api:1': false, 'web:1': false });
    const leaves = Object.values(running).map((a) => a.verdict_log_index);
    expect(leaves.every((leaf) => typeof leaf === 'number')).to.equal(true);
    expect(new Set(leaves).size).to.equal(3);
    // Reading it wrote nothing: the judgement is the one recorded at attach.
    expect(await recorded()).to.equal(3);
    for (const name of ['shop:1', 'api:1', 'web:1']) {
      const assert = await ok({ method: 'GET', path: `/api/v2/asserts/acme/fingerprint/${fingerprint(name)}?environment_name=prod` });
      expect([name, assert.json.log_index, assert.json.compliant]).to.deep.equal([name, running[name]!.verdict_log_index, running[name]!.compliant]);
    }
    expect(await recorded()).to.equal(3);
  });

  it('the same report again records nothing; new evidence makes a new verdict for that artifact only', async () => {
    const before = await snapshot();
    await report(['shop:1', 'api:1', 'web:1']);
    expect(await recorded()).to.equal(3);
    await attestScan('b2', 'api:1', true);
    // The reporter's next (unchanged) report judges api:1 again: its new verdict is recorded with it.
    await report(['shop:1', 'api:1', 'web:1']);
    expect(await recorded()).to.equal(4);
    const after = await snapshot(server.readToken);
    expect(after['api:1']!.compliant).to.equal(true);
    expect(after['api:1']!.verdict_log_index).to.not.equal(before['api:1']!.verdict_log_index);
    expect([after['shop:1']!.verdict_log_index, after['web:1']!.verdict_log_index]).to.deep.equal([
      before['shop:1']!.verdict_log_index,
      before['web:1']!.verdict_log_index,
    ]);
  });

  it('a read of a snapshot judged anew records its verdicts (assert snapshot is a gate), once', async () => {
    await attestScan('b1', 'shop:1', false);
    const first = await snapshot(server.readToken);
    expect(first['shop:1']!.compliant).to.equal(false);
    expect(await recorded()).to.equal(5);
    const again = await snapshot();
    expect(again['shop:1']!.verdict_log_index).to.equal(first['shop:1']!.verdict_log_index);
    expect(await recorded()).to.equal(5);
  });

  it("another organisation's token reads none of these verdicts and records none", async () => {
    const answer = await cli({ method: 'GET', path: '/api/v2/snapshots/acme/prod/-1' }, server.otherToken);
    expect(answer.status).to.be.oneOf([403, 404]);
    expect(await recorded()).to.equal(5);
  });

  it('verify-package re-derives every snapshot verdict offline, and names one forged with the server’s key', async () => {
    const { bytes, key } = await exported();
    const verified = await verifyPackage(opener(bytes), key);
    expect([verified.verdicts, verified.completeness.proven]).to.deep.equal([5, true]);
    const leaf = (await snapshot())['web:1']!.verdict_log_index!;
    let honest: any;
    await rewritePackage(bytes, (name, content) => {
      if (name === `records/${leaf}/verdict.json`) honest = JSON.parse(content.toString('utf8')).verdict;
      return content;
    });
    expect(honest).to.include({ scope: 'environment', environment: 'prod', fingerprint: fingerprint('web:1'), compliant: false });
    expect(honest.trails).to.deep.equal([]);
    // A forger with the database says web:1 passed: the package still verifies its signatures, and names the verdict.
    const flipped = {
      ...honest,
      compliant: true,
      policy_evaluations: honest.policy_evaluations.map((e: any) => ({ ...e, compliant: true, status: 'COMPLIANT' })),
    };
    const forged = await server.store.transaction((tx) =>
      tx.recordVerdict({
        organizationId,
        fingerprint: fingerprint('web:1'),
        verdict: canonicalJson(flipped),
        compliant: true,
        createdBy: null,
        at: 1_764_000_000,
      }),
    );
    const again = await exported();
    expect(await outcome(again.bytes, again.key)).to.equal(`verdict-mismatch records/${forged}/row.json`);
  });
});
