// @database
/**
 * Who stored each piece of evidence (`created_by`): a trail names the token that began it, an
 * attestation, approval, review or snapshot the token that stored it, on both backends, through
 * the views that show them.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { getApproval, getSnapshot, getTrail, listApprovals, listTrails } from '@trailproof/schema';
import { createToken } from '@trailproof/server';
import { assertMatchesContract, migrationsUndone, type TestServer } from '@trailproof/server/testing';
import { builtTesting } from '../../../../test/support/built-testing.ts';

/** The public id inside a `tp_<id>_<secret>` token. */
const idOf = (token: string) => token.split('_')[1]!;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('evidence provenance: created_by on trails, attestations, approvals, reviews and snapshots', () => {
  let server: TestServer;
  beforeEach(async () => (server = await (await builtTesting()).startTestServer()));
  afterEach(() => server.close());

  const begin = (token: string, name = 'build-1') => server.request('PUT', '/api/v2/trails/acme/app', { token, form: { data_json: JSON.stringify({ name }) } });
  const attest = (token: string, kind: 'junit' | 'generic', name: string) =>
    server.request('POST', `/api/v2/attestations/acme/app/trail/build-1/${kind}`, {
      token,
      form: {
        data_json: JSON.stringify(
          kind === 'junit'
            ? { attestation_name: name, junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 1 }] }
            : { attestation_name: name, is_compliant: true },
        ),
      },
    });

  it('names the token that began the trail and the token that stored each attestation, by description and id', async () => {
    const pipeline = await createToken(server.store, { org: 'acme', description: 'CI backend' });
    expect((await begin(pipeline.token)).status).to.equal(201);
    expect((await attest(pipeline.token, 'junit', 'unit')).status).to.equal(201);
    // A second token (no description) stores the next attestation, then begins the trail again.
    expect((await attest(server.token, 'generic', 'manual')).status).to.equal(201);
    expect((await begin(server.token)).status).to.equal(200);

    const trail = await server.request('GET', '/api/v2/trails/acme/app/build-1', { token: server.readToken });
    expect(trail.status).to.equal(200);
    assertMatchesContract(getTrail, 200, trail.body);
    // Begun again by another token, the trail still names the one that created it.
    expect(trail.body.created_by).to.equal(`CI backend (token ${pipeline.id})`);
    expect(trail.body.attestations.map((a: { attestation_name: string; created_by: string }) => [a.attestation_name, a.created_by])).to.deep.equal([
      ['unit', `CI backend (token ${pipeline.id})`],
      ['manual', `token ${idOf(server.token)}`],
    ]);

    const list = await server.request('GET', '/api/v2/trails/acme/app', { token: server.readToken });
    assertMatchesContract(listTrails, 200, list.body);
    expect(list.body.data.map((t: { name: string; created_by: string }) => [t.name, t.created_by])).to.deep.equal([
      ['build-1', `CI backend (token ${pipeline.id})`],
    ]);
  });

  it('keeps naming a token after it was revoked or expired: it stored the evidence when it was valid', async () => {
    const pipeline = await createToken(server.store, { org: 'acme', description: 'old pipeline', expiresAt: Date.now() / 1000 + 3600 });
    expect((await begin(pipeline.token)).status).to.equal(201);
    expect((await attest(pipeline.token, 'junit', 'unit')).status).to.equal(201);
    expect(await server.store.revokeToken(pipeline.id, Date.now() / 1000)).to.equal(true);
    expect((await attest(pipeline.token, 'junit', 'unit')).status).to.equal(401);

    const trail = (await server.request('GET', '/api/v2/trails/acme/app/build-1')).body;
    expect(trail.created_by).to.equal(`old pipeline (token ${pipeline.id})`);
    expect(trail.attestations.map((a: { created_by: string }) => a.created_by)).to.deep.equal([`old pipeline (token ${pipeline.id})`]);
  });

  it('answers created_by null for evidence kept from before the server recorded it (migration 0014)', async () => {
    expect((await begin(server.token)).status).to.equal(201);
    expect((await attest(server.token, 'junit', 'unit')).status).to.equal(201);
    await server.stop();
    const store = await (await builtTesting()).reopenTestStore(server, migrationsUndone('0014_evidence_provenance'));
    try {
      const org = (await store.findOrganization('acme'))!;
      const trail = (await store.findTrail(org.id, 'app', 'build-1'))!;
      expect(trail.createdBy).to.equal(null);
      expect((await store.listAttestations(trail.id)).map((a) => a.createdBy)).to.deep.equal([null]);
    } finally {
      await store.close();
    }
  });
  describe('approvals, reviews and snapshots', () => {
    const requestApproval = (token: string) =>
      server.request('POST', '/api/v2/approvals/acme/app', {
        token,
        json: { artifact_fingerprint: sha('v1'), description: 'release', src_commit_list: [] },
      });
    const review = (token: string, state: 'APPROVED' | 'UNAPPROVED', by: string) =>
      server.request('PUT', '/api/v2/approvals/acme/app/1', {
        token,
        json: { state, approved_by: by, comment: '', approval_url: '' },
      });
    const report = (token: string, image: string) =>
      server.request('PUT', '/api/v2/environments/acme/prod/report/server', {
        token,
        json: { artifacts: [{ digests: { [image]: sha(image) }, creationTimestamp: 1_763_800_000 }] },
      });

    it('names the token that requested an approval and the token that sent each review', async () => {
      const pipeline = await createToken(server.store, { org: 'acme', description: 'release pipeline' });
      const reviewer = await createToken(server.store, { org: 'acme', description: 'change board' });
      expect((await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'app' } })).status).to.be.oneOf([200, 201]);
      const requested = await requestApproval(pipeline.token);
      expect(requested.status, JSON.stringify(requested.body)).to.equal(201);
      expect(requested.body.created_by).to.equal(`release pipeline (token ${pipeline.id})`);
      expect((await review(reviewer.token, 'APPROVED', 'ada')).status).to.equal(200);
      // The name a client gives (approved_by) is its claim; created_by is the token the server checked.
      expect((await review(server.token, 'UNAPPROVED', 'ada')).status).to.equal(200);

      const approval = await server.request('GET', '/api/v2/approvals/acme/app/1', { token: server.readToken });
      assertMatchesContract(getApproval, 200, approval.body);
      expect(approval.body.created_by).to.equal(`release pipeline (token ${pipeline.id})`);
      expect(approval.body.approvals.map((r: { approved_by: string; created_by: string }) => [r.approved_by, r.created_by])).to.deep.equal([
        ['ada', `change board (token ${reviewer.id})`],
        ['ada', `token ${idOf(server.token)}`],
      ]);
      const list = await server.request('GET', '/api/v2/approvals/acme/app', { token: server.readToken });
      assertMatchesContract(listApprovals, 200, list.body);
      expect(list.body[0].created_by).to.equal(approval.body.created_by);
      expect(list.body[0].approvals).to.deep.equal(approval.body.approvals);
    });

    it('names the token whose report made each snapshot', async () => {
      const agent = await createToken(server.store, { org: 'acme', description: 'prod agent' });
      expect((await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'prod', type: 'server' } })).status).to.equal(201);
      expect((await report(agent.token, 'acme/web:1')).status).to.equal(201);
      expect((await report(server.token, 'acme/web:2')).status).to.equal(201);
      const snapshot = async (index: number) =>
        (await server.request('GET', `/api/v2/environments/acme/prod/snapshots/${index}`, { token: server.readToken })).body;
      const first = await snapshot(1);
      assertMatchesContract(getSnapshot, 200, first);
      expect([first.created_by, (await snapshot(2)).created_by]).to.deep.equal([`prod agent (token ${agent.id})`, `token ${idOf(server.token)}`]);
    });

    it('answers created_by null where a row names no token (as rows from before migration 0015), and the chain notices tokens taken away', async () => {
      expect((await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'app' } })).status).to.be.oneOf([200, 201]);
      expect((await requestApproval(server.token)).status).to.equal(201);
      expect((await review(server.token, 'APPROVED', 'ada')).status).to.equal(200);
      expect((await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'prod', type: 'server' } })).status).to.equal(201);
      expect((await report(server.token, 'acme/web:1')).status).to.equal(201);
      const acme = (await server.store.findOrganization('acme'))!;
      expect((await server.store.verifyChain(acme.id, 'acme')).ok).to.equal(true);
      await server.stop();
      const store = await (await builtTesting()).reopenTestStore(server, migrationsUndone('0015_approval_snapshot_provenance'));
      try {
        const org = (await store.findOrganization('acme'))!;
        const flow = (await store.findFlow(org.id, 'app'))!;
        const approval = (await store.getApproval(flow.id, 1))!;
        expect([approval.createdBy, approval.approvals.map((r) => r.createdBy)]).to.deep.equal([null, [null]]);
        const environment = (await store.findEnvironment(org.id, 'acme', 'prod'))!;
        expect((await store.getSnapshot(environment.id, 1))!.createdBy).to.equal(null);
        // These rows were digested with their token; with it gone the chain must say so, from the first of them.
        const verified = await store.verifyChain(org.id, 'acme');
        expect([verified.ok, verified.firstBroken?.type]).to.deep.equal([false, 'approval']);
      } finally {
        await store.close();
      }
    });
  });
});
