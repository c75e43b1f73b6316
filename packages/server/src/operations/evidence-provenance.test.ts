/**
 * Who stored each piece of evidence: a trail names the token that began it, an attestation the
 * token that stored it (`created_by`), on both backends, through the trail and list views.
 */
import { expect } from 'chai';
import { getTrail, listTrails } from '@trailproof/schema';
import { createToken } from '@trailproof/server';
import { assertMatchesContract, migrationsUndone, reopenTestStore, startTestServer, type TestServer } from '@trailproof/server/testing';

/** The public id inside a `tp_<id>_<secret>` token. */
const idOf = (token: string) => token.split('_')[1]!;

describe('evidence provenance: created_by on trails and attestations', () => {
  let server: TestServer;
  beforeEach(async () => (server = await startTestServer()));
  afterEach(() => server.close());

  const begin = (token: string, name = 'build-1') =>
    server.request('PUT', '/api/v2/trails/acme/app', { token, form: { data_json: JSON.stringify({ name }) } });
  const attest = (token: string, kind: 'junit' | 'generic', name: string) => server.request('POST', `/api/v2/attestations/acme/app/trail/build-1/${kind}`, {
    token,
    form: {
      data_json: JSON.stringify(kind === 'junit'
        ? { attestation_name: name, junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 1 }] }
        : { attestation_name: name, is_compliant: true }),
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
    expect(list.body.data.map((t: { name: string; created_by: string }) => [t.name, t.created_by])).to.deep.equal([['build-1', `CI backend (token ${pipeline.id})`]]);
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
    const store = await reopenTestStore(server, migrationsUndone('0014_evidence_provenance'));
    try {
      const org = (await store.findOrganization('acme'))!;
      const trail = (await store.findTrail(org.id, 'app', 'build-1'))!;
      expect(trail.createdBy).to.equal(null);
      expect((await store.listAttestations(trail.id)).map((a) => a.createdBy)).to.deep.equal([null]);
    } finally {
      await store.close();
    }
  });
});
