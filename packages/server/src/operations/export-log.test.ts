// @database
/**
 * GET /log/{org}/export on SQLite or PostgreSQL: a read token gets a package that verifies with
 * the served key, streamed as application/gzip; the selection narrows it; mistakes are 400s
 * naming their field, a log without a checkpoint a 404, another organisation's token nothing.
 */
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { exportLog } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';
import { storeStory } from '../audit/audit-story.ts';
import { verifyPackage } from '../audit/verify-package.ts';

describe('GET /log/{org}/export: the audit package', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  const get = (query = '', token = server.readToken) => server.request('GET', `/api/v2/log/acme/export${query}`, { token });
  const verified = async (bytes: Uint8Array) => {
    const key = (await server.request('GET', '/api/v2/log/acme/key', { token: server.readToken })).body.verifier_key as string;
    return verifyPackage(() => Readable.from([Buffer.from(bytes)]), key);
  };

  it('answers 404 while the log has no checkpoint, then a package that verifies, narrowed by flow, trail and time', async () => {
    const none = await get();
    expect(none.status).to.equal(404);
    assertMatchesContract(exportLog, 404, none.body);

    await storeStory((method, path, options) => server.request(method, path, options));
    await server.store.makeCheckpoints!();
    const all = await get();
    expect([all.status, all.headers.get('content-type'), all.headers.get('content-disposition')]).to.deep.equal([
      200,
      'application/gzip',
      'attachment; filename="acme-audit.tar.gz"',
    ]);
    const whole = await verified(all.bytes);
    expect([whole.records, whole.attachments, whole.checkpoint.size, whole.manifest.selection]).to.deep.equal([13, 2, 13, {}]);

    const web = await verified((await get('?flow=web')).bytes);
    expect([web.records, web.attachments, web.manifest.selection]).to.deep.equal([2, 0, { flow: 'web' }]);
    const backend = await verified((await get('?flow=backend')).bytes);
    expect([backend.records, backend.attachments]).to.deep.equal([10, 2]); // 3 begins, 4 attestations, the artifact, the approval and its review
    // The review's flow is read from its approval's leaf, in the leaf list: the verifier agrees the package is complete.
    expect([whole.completeness.proven, web.completeness.proven, backend.completeness.proven]).to.deep.equal([true, true, true]);
    const late = await verified((await get(`?since=${Math.ceil(Date.now() / 1000) + 60}`)).bytes);
    expect(late.records).to.equal(0);
  });

  it('answers 404 naming the field for a flow or trail the organisation does not have, not an empty package', async () => {
    const noFlow = await get('?flow=nosuchflow');
    expect([noFlow.status, noFlow.body.errors]).to.deep.equal([404, { 'query.flow': 'no such flow' }]);
    assertMatchesContract(exportLog, 404, noFlow.body);
    const noTrail = await get('?flow=backend&trail=nosuchtrail');
    expect([noTrail.status, noTrail.body.errors]).to.deep.equal([404, { 'query.trail': 'no such trail in the flow' }]);
    const trail = await verified((await get('?flow=backend&trail=t1')).bytes);
    expect([trail.records, trail.completeness.proven]).to.deep.equal([5, true]); // two begins, the artifact, two attestations
  });

  it('answers 400 naming the field for a trail without its flow or a time range inverted, and nothing to another organisation', async () => {
    const noFlow = await get('?trail=t1');
    expect([noFlow.status, noFlow.body.errors]).to.deep.equal([400, { 'query.trail': 'needs flow: a trail is named within its flow' }]);
    const inverted = await get('?since=20&until=10');
    expect([inverted.status, Object.keys(inverted.body.errors)]).to.deep.equal([400, ['query.since']]);
    const badTime = await get('?since=yesterday');
    expect(badTime.status).to.equal(400);
    expect((await get('', server.otherToken)).status).to.be.oneOf([403, 404]);
    expect((await get('', null as never)).status).to.equal(401);
  });
});
