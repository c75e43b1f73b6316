// @database
/** The artifacts table (migration 0022): stored once per trail and fingerprint, chained, append-only, found by fingerprint and trail. */
import { expect } from 'chai';
import { openTestStore } from '@trailproof/server/testing';
import type { Store } from '@trailproof/server';
import type { ArtifactAppend } from './artifacts.ts';

describe('artifacts store', function () {
  this.timeout(60_000);
  let store: Store;
  let cleanup: () => void | Promise<void> = () => {};
  let organizationId = 0;
  const fp = (c: string) => c.repeat(64);

  beforeEach(async () => {
    ({ store, cleanup } = await openTestStore());
    organizationId = Number((await store.ensureOrganization('acme', 1)).id);
    const flow = await store.ensureFlow(organizationId, 'app', 1);
    await store.upsertTrail(flow.id, { name: 't1', git_commit_info: { sha1: 'c'.repeat(40) } }, null, 1, null);
    await store.upsertTrail(flow.id, { name: 't2' }, null, 1, null);
  });
  afterEach(async () => {
    await store.close().catch(() => {});
    await cleanup();
  });

  const artifact = (overrides: Partial<ArtifactAppend> = {}): ArtifactAppend => ({
    organizationId,
    flow: 'app',
    trail: 't1',
    fingerprint: fp('a'),
    filename: 'app.tgz',
    templateReferenceName: 'backend',
    gitCommit: 'c'.repeat(40),
    gitCommitInfo: { sha1: 'c'.repeat(40), message: 'm' },
    repoInfo: { name: 'org/app', url: 'https://example.com/org/app' },
    buildUrl: 'https://ci.example.com/1',
    commitUrl: 'https://example.com/c',
    repoUrl: 'https://example.com/org/app',
    externalUrls: null,
    annotations: { team: 'a' },
    createdBy: null,
    at: 5,
    ...overrides,
  });

  it('stores an artifact once per trail and fingerprint, with its chain record, and finds it', async () => {
    const first = await store.appendArtifact(artifact());
    const again = await store.appendArtifact(artifact({ filename: 'other.tgz' }));
    const otherTrail = await store.appendArtifact(artifact({ trail: 't2' }));
    expect(first).to.include({ created: true });
    expect(again).to.deep.equal({ ...first, created: false });
    expect(otherTrail).to.include({ created: true });
    const found = await store.artifactsByFingerprints(organizationId, [fp('a'), fp('b')]);
    expect(found.map((r) => [r.trailName, r.filename, r.repoName])).to.deep.equal([
      ['t2', 'app.tgz', 'org/app'],
      ['t1', 'app.tgz', 'org/app'],
    ]);
    expect(found[1]).to.deep.include({ flowName: 'app', templateReferenceName: 'backend', annotations: { team: 'a' }, gitCommit: 'c'.repeat(40) });
    const trail = (await store.findTrail(organizationId, 'app', 't1'))!;
    expect((await store.artifactsOfTrails([trail.id])).map((r) => r.id)).to.deep.equal(['id' in first ? first.id : 0]);
    const verified = await store.verifyChain(organizationId, 'acme');
    expect(verified).to.include({ ok: true, records: 4 });
    expect((await store.logIndexesOf(organizationId, 'artifacts', ['id' in first ? first.id : 0])).size).to.equal(1);
  });

  it('says which of flow and trail is missing, storing nothing', async () => {
    expect(await store.appendArtifact(artifact({ flow: 'nope' }))).to.deep.equal({ missing: 'flow' });
    expect(await store.appendArtifact(artifact({ trail: 'nope' }))).to.deep.equal({ missing: 'trail' });
    expect(await store.artifactsByFingerprints(organizationId, [fp('a')])).to.deep.equal([]);
  });

  it('stores reports that arrive together in one batch: a fingerprint sent twice to a trail once, a missing trail failing alone, each chained', async () => {
    const batches: Array<{ writer: string; size: number }> = [];
    const unsubscribe = store.onWriteBatch!((batch) => batches.push({ writer: batch.writer, size: batch.size }));
    const results = await Promise.all([
      store.appendArtifact(artifact({ at: 9 })),
      store.appendArtifact(artifact({ filename: 'again.tgz' })),
      store.appendArtifact(artifact({ trail: 'nope' })),
      store.appendArtifact(artifact({ trail: 't2', fingerprint: fp('b') })),
      store.appendArtifact(artifact({ fingerprint: fp('c'), at: 2 })),
    ]);
    unsubscribe();
    const [first, again, missing, other, later] = results as Array<{ id: number; trailId: number; created: boolean }>;
    expect(again).to.deep.equal({ ...first, created: false });
    expect(missing).to.deep.equal({ missing: 'trail' });
    expect([first!.created, other!.created, later!.created]).to.deep.equal([true, true, true]);
    expect(batches.filter((b) => b.writer === 'artifacts')).to.deep.equal([{ writer: 'artifacts', size: 5 }]);
    const stored = await store.artifactsByFingerprints(organizationId, [fp('a'), fp('b'), fp('c')]);
    expect(stored.map((r) => [r.trailName, r.filename, r.createdAt])).to.have.deep.members([
      ['t1', 'app.tgz', 9],
      ['t2', 'app.tgz', 5],
      // Not before the trail's latest evidence, as an attestation's time.
      ['t1', 'app.tgz', 9],
    ]);
    expect(await store.verifyChain(organizationId, 'acme')).to.include({ ok: true, records: 5 });
    const leaves = await store.logIndexesOf(organizationId, 'artifacts', [first!.id, other!.id, later!.id]);
    expect([leaves.get(first!.id), leaves.get(other!.id), leaves.get(later!.id)]).to.deep.equal([2, 3, 4]);
  });

  it('keeps another organisation out', async () => {
    await store.appendArtifact(artifact());
    const other = Number((await store.ensureOrganization('other', 1)).id);
    expect(await store.artifactsByFingerprints(other, [fp('a')])).to.deep.equal([]);
  });
});
