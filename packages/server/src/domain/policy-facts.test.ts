// @database
/**
 * The facts a policy judges, gathered in batches: each trail a fingerprint was reported in, its
 * flow's tags, its compliance, and the latest of each name of the attestations on the artifact
 * and on the trail, never another artifact's, another flow's (when narrowed) or another
 * organisation's.
 */
import { expect } from 'chai';
import type { Store } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';
import { gatherPolicyFacts } from './policy-facts.ts';

const fp = (c: string) => c.repeat(64);

describe('policy facts', function () {
  this.timeout(60_000);
  let store: Store;
  let cleanup: () => void | Promise<void> = () => {};
  let acme = 0;
  let other = 0;

  beforeEach(async () => {
    ({ store, cleanup } = await openTestStore());
    acme = Number((await store.ensureOrganization('acme', 1)).id);
    other = Number((await store.ensureOrganization('other', 1)).id);
  });
  afterEach(async () => {
    await store.close().catch(() => {});
    await cleanup();
  });

  const trail = async (organizationId: number, flow: string, name: string) => {
    const f = await store.ensureFlow(organizationId, flow, 1);
    await store.upsertTrail(f.id, { name }, null, 1, null);
  };
  const artifact = (organizationId: number, flow: string, trailName: string, fingerprint: string, name: string) =>
    store.transaction((tx) =>
      tx.appendArtifact({
        organizationId,
        flow,
        trail: trailName,
        fingerprint,
        filename: `${name}:1`,
        templateReferenceName: name,
        gitCommit: null,
        gitCommitInfo: null,
        repoInfo: null,
        buildUrl: 'https://ci',
        commitUrl: 'https://git',
        repoUrl: null,
        externalUrls: null,
        annotations: null,
        createdBy: null,
        at: 2,
      }),
    );
  const attest = (
    organizationId: number,
    flow: string,
    trailName: string,
    name: string,
    o: { type?: string; data?: object; fingerprint?: string; compliant?: boolean },
  ) =>
    store.appendAttestation({
      organizationId,
      flow,
      trail: trailName,
      name,
      type: o.type ?? 'generic',
      dataJson: JSON.stringify(o.data ?? {}),
      artifactFingerprint: o.fingerprint ?? null,
      attachment: null,
      compliant: o.compliant ?? true,
      createdBy: null,
      at: 3,
    });

  /** fp('a') reported in two flows' trails (b1 of backend, tagged, and r1 of release), fp('b') beside it in b1. */
  const reportedTwice = async () => {
    await trail(acme, 'backend', 'b1');
    await trail(acme, 'release', 'r1');
    await store.changeFlowTags(acme, 'backend', { set: { team: 'core' }, remove: [] }, 2);
    await artifact(acme, 'backend', 'b1', fp('a'), 'api');
    await artifact(acme, 'backend', 'b1', fp('b'), 'web');
    await artifact(acme, 'release', 'r1', fp('a'), 'api');
  };

  it("gives each trail of the fingerprint its flow's tags, its compliance and the latest attestation of each name on the artifact or the trail", async () => {
    await reportedTwice();
    await attest(acme, 'backend', 'b1', 'unit', { data: { target_artifacts: ['api'] }, compliant: false });
    await attest(acme, 'backend', 'b1', 'unit', { data: { target_artifacts: ['api'] } });
    await attest(acme, 'backend', 'b1', 'lint', { fingerprint: fp('a') });
    await attest(acme, 'backend', 'b1', 'web-only', { fingerprint: fp('b') });
    await attest(acme, 'backend', 'b1', 'web-named', { data: { target_artifacts: ['web'] } });
    await attest(acme, 'backend', 'b1', 'sbom', {});
    await attest(acme, 'release', 'r1', 'approval', { type: 'decision', data: { control: 'CTL-1' }, compliant: false });
    // Another organisation's report of the same fingerprint is never read.
    await trail(other, 'backend', 'b1');
    await artifact(other, 'backend', 'b1', fp('a'), 'api');
    await attest(other, 'backend', 'b1', 'secret', {});

    const gathered = await gatherPolicyFacts(store, 10, acme, [fp('a'), fp('c')]);
    const a = gathered.get(fp('a'))!;
    expect(a.facts.artifact).to.deep.equal({ name: 'api:1', fingerprint: fp('a') });
    expect(a.facts.trails.map((t) => [t.flow.name, t.trail.name])).to.deep.equal([
      ['release', 'r1'],
      ['backend', 'b1'],
    ]);
    const [release, backend] = a.facts.trails;
    expect(release!.trail.compliant).to.equal(false);
    expect(release!.attestations).to.deep.equal([{ name: 'approval', type: 'decision', compliant: false, for_control: 'CTL-1' }]);
    expect(backend!.trail.compliant).to.equal(true);
    expect(backend!.attestations).to.deep.equal([
      { name: 'unit', type: 'generic', compliant: true },
      { name: 'lint', type: 'generic', compliant: true },
      { name: 'sbom', type: 'generic', compliant: true },
    ]);
    expect(a.reports.map((r) => r.attestationIds.length)).to.deep.equal([1, 3]);
    // Not reported anywhere: an entry without provenance.
    expect(gathered.get(fp('c'))!.facts).to.deep.equal({ artifact: { name: '', fingerprint: fp('c') }, trails: [] });
    // Narrowed to one flow, with the caller's name for the artifact.
    const narrowed = (await gatherPolicyFacts(store, 10, acme, [fp('a')], { flow: 'backend', names: new Map([[fp('a'), 'img']]) })).get(fp('a'))!;
    expect(narrowed.facts.artifact.name).to.equal('img');
    expect(narrowed.facts.trails.map((t) => t.flow)).to.deep.equal([{ name: 'backend', tags: { team: 'core' } }]);
    expect((await gatherPolicyFacts(store, 10, acme, [])).size).to.equal(0);
  });

  it('reads many fingerprints in chunks below the bound-variable limit', async () => {
    await trail(acme, 'app', 't');
    const many = Array.from({ length: 1200 }, (_, i) => i.toString(16).padStart(64, '0'));
    for (const f of many.slice(0, 3)) await artifact(acme, 'app', 't', f, 'x');
    const gathered = await gatherPolicyFacts(store, 10, acme, many);
    expect(gathered.size).to.equal(1200);
    expect([...gathered.values()].filter((g) => g.facts.trails.length).length).to.equal(3);
  });
  // The assert's one read (on SQLite one message to a reader thread) against its parts, each asked of the store on its own.
  it("an assert's one read answers what its parts answer, and the facts gathered from it are the same", async () => {
    await reportedTwice();
    await attest(acme, 'backend', 'b1', 'unit', { data: { target_artifacts: ['api'] }, compliant: false });
    await attest(acme, 'backend', 'b1', 'lint', { fingerprint: fp('a') });
    await attest(acme, 'release', 'r1', 'approval', { type: 'decision', data: { control: 'CTL-1' }, compliant: false });
    const yaml = '_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n  provenance:\n    required: true\n';
    for (const [name, at] of [
      ['p1', 2],
      ['p2', 3],
      ['p1', 4],
    ] as const)
      await store.putPolicyVersion({ organizationId: acme, name, description: null, type: 'env', comment: '', yaml: `${yaml}# ${at}\n`, createdBy: null, at });
    const env = await store.upsertEnvironment(acme, { name: 'prod', type: 'K8S' }, 5);
    await store.setEnvironmentPolicies(env.id, ['p1', 'p2'], 6);

    const parts = async (flow: string | undefined, names: readonly string[] | undefined, fingerprint = fp('a')) => {
      const rows = await store.policyArtifactRows(acme, [fingerprint], flow);
      const compliance = await store.complianceFactsOfTrails([...new Set(rows.map((r) => r.trailId))]);
      const deciding = [...new Set(compliance.facts.filter((f) => f.type === 'decision').map((f) => f.trailId))];
      return {
        rows,
        versions: names?.length ? await store.latestPolicyVersions(acme, names) : [],
        compliance,
        controls: deciding.length ? await store.decisionControlsOf(deciding) : new Map<number, string>(),
      };
    };
    const environment = (await store.findEnvironment(acme, 'acme', 'prod'))!;
    const inProd = await store.assertReads(acme, 'acme', { fingerprint: fp('a'), environment: 'prod' });
    expect(inProd).to.deep.equal({ environment, ...(await parts(undefined, ['p1', 'p2'])) });
    expect(inProd.versions.map((v) => [v.name, v.version]).sort()).to.deep.equal([
      ['p1', 2],
      ['p2', 1],
    ]);
    expect(inProd.controls.size).to.equal(1);
    const named = await store.assertReads(acme, 'acme', { fingerprint: fp('a'), flow: 'backend', policies: ['p2'] });
    expect(named).to.deep.equal({ environment: undefined, ...(await parts('backend', ['p2'])) });
    expect(named.controls.size).to.equal(0);
    // No such environment: nothing else read.
    expect(await store.assertReads(acme, 'acme', { fingerprint: fp('a'), environment: 'staging' })).to.deep.equal({
      environment: null,
      rows: [],
      versions: [],
      compliance: { facts: [], artifacts: [] },
      controls: new Map(),
    });
    // A fingerprint nobody reported, by flow's templates (no policies).
    expect(await store.assertReads(acme, 'acme', { fingerprint: fp('c') })).to.deep.equal({
      environment: undefined,
      ...(await parts(undefined, undefined, fp('c'))),
    });
    for (const [flow, read] of [
      [undefined, inProd],
      ['backend', named],
    ] as const)
      expect(await gatherPolicyFacts(store, 10, acme, [fp('a')], { flow, read })).to.deep.equal(await gatherPolicyFacts(store, 10, acme, [fp('a')], { flow }));
  });
});
