// @database
/**
 * Reading evidence back for lists: the compliance facts of a page of trails, read without their
 * attestations' data, must be exactly what the full attestations give (`factsOf`).
 */
import { expect } from 'chai';
import type { Store } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';
import { factsOf } from '../../domain/evaluate.ts';

describe('attestation facts of trails', function () {
  this.timeout(30_000);
  let store: Store;
  let cleanup: () => void | Promise<void> = () => {};
  let organizationId = 0;

  beforeEach(async () => {
    ({ store, cleanup } = await openTestStore());
    organizationId = Number((await store.ensureOrganization('acme', 1)).id);
  });
  afterEach(async () => {
    await store.close().catch(() => {});
    await cleanup();
  });

  /** Three trails (t1, t2, empty) with attestations whose data names target artifacts in every way it can. */
  async function seedTrails() {
    const flow = await store.ensureFlow(organizationId, 'app', 1);
    for (const name of ['t1', 't2', 'empty']) await store.upsertTrail(flow.id, { name }, null, 1, null);
    const append = (trail: string, name: string, dataJson: string, compliant = true) =>
      store.appendAttestation({
        organizationId,
        flow: 'app',
        trail,
        name,
        type: 'junit',
        dataJson,
        artifactFingerprint: null,
        attachment: null,
        compliant,
        createdBy: null,
        at: 2,
      });
    await append('t1', 'unit', JSON.stringify({ junit_results: [{ name: 'suite', failures: 0 }] }));
    await append('t1', 'integration', JSON.stringify({ target_artifacts: ['api', 7, 'web'] }), false);
    await append('t2', 'unit', JSON.stringify({ target_artifacts: 'api' }));
    // The key written with an escape, as a client's own JSON text may have it (a plugin storing text as it came).
    await append('t2', 'escaped', '{"target\\u005fartifacts":["api"]}');
    // The name inside other data is not the attestation's own key.
    await append('t2', 'nested', JSON.stringify({ user_data: { target_artifacts: ['web'] }, note: '"target_artifacts"' }));
    await append('t1', 'unit', JSON.stringify({ target_artifacts: [] }), false);
    return Promise.all(['t1', 't2', 'empty'].map(async (name) => (await store.findTrail(organizationId, 'app', name))!));
  }

  it('gives each trail the facts its full attestations give, oldest first, whatever the data says of target_artifacts', async () => {
    const trails = await seedTrails();
    const facts = await store.attestationFactsOfTrails(trails.map((t) => t.id));
    for (const trail of trails) {
      const expected = (await store.listAttestations(trail.id)).map(factsOf);
      const got = facts.filter((f) => f.trailId === trail.id).map(({ trailId: _trailId, ...fact }) => fact);
      expect(got, trail.name).to.deep.equal(expected);
    }
    expect(facts.map((f) => f.targets)).to.deep.equal([[], ['api', 'web'], [], ['api'], [], []]);
    expect(await store.attestationFactsOfTrails([])).to.deep.equal([]);
    // More trails than one statement's list takes: t2 in the first chunk of 500, t1 in the third; still one order.
    const unknown = (from: number, n: number) => Array.from({ length: n }, (_, k) => 1_000_000 + from + k);
    const spread = await store.attestationFactsOfTrails([...unknown(0, 300), trails[1]!.id, ...unknown(300, 800), trails[0]!.id]);
    expect(spread).to.deep.equal(facts.filter((f) => f.trailId !== trails[2]!.id));
  });

  it("gives the same facts with the trails' reported artifacts in one read (complianceFactsOfTrails), oldest first, across chunks of 500 trails", async () => {
    const trails = await seedTrails();
    const report = (trail: string, fingerprint: string, templateReferenceName: string) =>
      store.appendArtifact({
        organizationId,
        flow: 'app',
        trail,
        fingerprint: fingerprint.repeat(64),
        filename: `${templateReferenceName}.tgz`,
        templateReferenceName,
        gitCommit: null,
        gitCommitInfo: null,
        repoInfo: null,
        buildUrl: 'https://ci.example/1',
        commitUrl: 'https://git.example/c',
        repoUrl: null,
        externalUrls: null,
        annotations: null,
        createdBy: null,
        at: 3,
      });
    await report('t2', 'b', 'web');
    await report('t1', 'a', 'api');
    await report('t2', 'c', 'api');
    const ids = trails.map((t) => t.id);
    const reported = (await store.artifactsOfTrails(ids)).map((r) => ({
      trailId: r.trailId,
      id: r.id,
      fingerprint: r.fingerprint,
      name: r.templateReferenceName,
    }));
    const both = await store.complianceFactsOfTrails(ids);
    expect(both.facts).to.deep.equal(await store.attestationFactsOfTrails(ids));
    expect(both.artifacts).to.deep.equal(reported.sort((x, y) => x.id - y.id));
    expect(both.artifacts.map((r) => [r.name, r.fingerprint[0]])).to.deep.equal([
      ['web', 'b'],
      ['api', 'a'],
      ['api', 'c'],
    ]);
    expect(await store.complianceFactsOfTrails([])).to.deep.equal({ facts: [], artifacts: [] });
    const unknown = (from: number, n: number) => Array.from({ length: n }, (_, k) => 1_000_000 + from + k);
    expect(await store.complianceFactsOfTrails([...unknown(0, 300), ids[1]!, ...unknown(300, 800), ids[0]!, ids[1]!])).to.deep.equal({
      facts: both.facts.filter((f) => f.trailId !== ids[2]),
      artifacts: both.artifacts,
    });
  });
});
