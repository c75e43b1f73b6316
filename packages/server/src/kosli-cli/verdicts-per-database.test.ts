// @database
/**
 * A process remembers what judging an artifact worked out (domain/judgement-memory.ts), but a
 * verdict names its records' log indexes, which are one database's: two servers in one process,
 * with the same organisation, records and ids but logs one leaf apart, each record a verdict of
 * their own leaves, and each package verifies.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { outcome } from '../audit/package-fixture.ts';
import { registryArtifact, sha256Of } from '../../../../test/support/fleet.ts';
import { sendAsCli, type CliCall } from './go-wire.ts';

const policy =
  '_schema: https://kosli.com/schemas/policy/environment/v1\n\nartifacts:\n  provenance:\n    required: true\n  attestations:\n    - name: scan\n      type: generic\n';

describe('Verdicts remembered by a process are each database’s own', function () {
  this.timeout(120_000);
  const servers: TestServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));

  const ok = async (server: TestServer, call: Omit<CliCall, 'token'>) => {
    const answer = await sendAsCli(server.url, { token: server.token, ...call });
    expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.be.oneOf([200, 201]);
    return answer;
  };
  const beginTrail = (server: TestServer, name: string) =>
    ok(server, { method: 'PUT', path: '/api/v2/trails/acme/shop', form: [{ type: 'field', name: 'data_json', content: { name, description: '' } }] });

  /** The same story on `server`: after `extraTrails` trails begun first, which shift its log's leaves but no artifact's or attestation's id. */
  async function story(server: TestServer, extraTrails: number) {
    await ok(server, { method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'prod', type: 'K8S', description: '', require_provenance: false } });
    for (let i = 0; i < extraTrails; i++) await beginTrail(server, `early-${i}`);
    await beginTrail(server, 'b1');
    await ok(server, {
      method: 'POST',
      path: '/api/v2/artifacts/acme/shop',
      payload: registryArtifact('shop:1', 'b1'),
    });
    await ok(server, {
      method: 'POST',
      path: '/api/v2/attestations/acme/shop/trail/b1/generic',
      form: [{ type: 'field', name: 'data_json', content: { artifact_fingerprint: sha256Of('shop:1'), attestation_name: 'scan', is_compliant: true } }],
    });
    await ok(server, {
      method: 'PUT',
      path: '/api/v2/policies/acme',
      form: [
        { type: 'field', name: 'payload', content: { name: 'gate', description: '', comment: '', type: 'env' } },
        { type: 'file', name: 'policy_file', filename: 'gate.yml', bytes: Buffer.from(policy) },
      ],
    });
  }

  it('asserts of the same evidence in two databases each record a verdict of their own leaves', async () => {
    servers.push(await startTestServer(), await startTestServer());
    const [first, second] = servers as [TestServer, TestServer];
    await story(first, 0);
    await story(second, 1);
    const asserted = [];
    for (const server of [first, second]) {
      const answer = await ok(server, { method: 'GET', path: `/api/v2/asserts/acme/fingerprint/${sha256Of('shop:1')}?policy_name=gate` });
      expect(answer.json.compliant).to.equal(true);
      asserted.push(answer.json.log_index);
    }
    // One leaf apart, as the logs are.
    expect(asserted[1]).to.equal(asserted[0] + 1);
    for (const server of [first, second]) {
      await server.store.makeCheckpoints!();
      const bytes = Buffer.from((await server.request('GET', '/api/v2/log/acme/export', { token: server.readToken })).bytes);
      const key = (await server.request('GET', '/api/v2/log/acme/key', { token: server.readToken })).body.verifier_key as string;
      expect(await outcome(bytes, key)).to.equal('verified');
    }
  });
});
