// @database
/**
 * Fields the contract accepts that the store must keep (issue 46's audit of "acknowledged but
 * dropped"): each is sent and read back. On SQLite and on PostgreSQL (TRAILPROOF_TEST_DATABASE).
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { whileProbingHealth } from './health-probe.ts';

describe('hostile clients: fields accepted and kept', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server?.close());

  it("keeps a K8S pod's owner references in its snapshot", async () => {
    expect((await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'cluster', type: 'K8S' } })).status).to.equal(201);
    const owners = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d4f', uid: 'u-1', controller: true, blockOwnerDeletion: true }];
    const pod = { podName: 'web-5d4f-x', namespace: 'prod', owners, digests: { web: 'a'.repeat(64) }, creationTimestamp: 1_700_000_000 };
    const { result, slowestMs } = await whileProbingHealth(server, () =>
      server.request('PUT', '/api/v2/environments/acme/cluster/report/K8S', { json: { artifacts: [pod, { ...pod, podName: 'bare', owners: null }] } }),
    );
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status, JSON.stringify(result.body)).to.equal(201);
    const snapshot = await server.request('GET', '/api/v2/environments/acme/cluster/snapshots/1');
    expect(snapshot.status).to.equal(200);
    expect(snapshot.body.artifacts[0].instances).to.deep.equal([
      { podName: 'web-5d4f-x', namespace: 'prod', owners },
      { podName: 'bare', namespace: 'prod' },
    ]);
  });
});
