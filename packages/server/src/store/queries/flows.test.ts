// @database
/**
 * The overview's flows: a page of them by name, each with its newest trail read in the same
 * query (the page used to read each trail by id on its own), and another organisation's left out.
 */
import { expect } from 'chai';
import type { Store } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';

describe('flows with their latest trail (the overview)', function () {
  this.timeout(60_000);
  let store: Store;
  let cleanup: () => void | Promise<void> = () => {};

  beforeEach(async () => {
    ({ store, cleanup } = await openTestStore());
  });
  afterEach(async () => {
    await store.close().catch(() => {});
    await cleanup();
  });

  it('gives each flow of a page its newest trail as a whole row, null before the first', async () => {
    const acme = Number((await store.ensureOrganization('acme', 1)).id);
    const globex = Number((await store.ensureOrganization('globex', 1)).id);
    const api = await store.ensureFlow(acme, 'api', 1);
    await store.ensureFlow(acme, 'bare', 1);
    const web = await store.ensureFlow(acme, 'web', 1);
    await store.upsertTrail(api.id, { name: 'a1' }, null, 10, null);
    await store.upsertTrail(api.id, { name: 'a2', description: 'newest', git_commit_info: { sha1: 'f'.repeat(40), branch: 'main' } }, null, 20, null);
    await store.upsertTrail(web.id, { name: 'w1' }, null, 15, null);
    await store.upsertTrail((await store.ensureFlow(globex, 'api', 1)).id, { name: 'g1' }, null, 30, null);

    const { items, total } = await store.flowsWithLatestTrail(acme, 0, 10);
    expect(total).to.equal(3);
    expect(items.map((f) => [f.name, f.latestTrail?.name ?? null])).to.deep.equal([
      ['api', 'a2'],
      ['bare', null],
      ['web', 'w1'],
    ]);
    const a2 = items[0]!.latestTrail!;
    expect(a2).to.deep.include({ flowName: 'api', description: 'newest', createdAt: 20, effectiveTemplateSha256: null });
    expect(a2.gitCommitInfo).to.deep.include({ branch: 'main' });
    // The same row as a trail read on its own.
    expect(a2).to.deep.equal(await store.getTrailById(a2.id));

    const second = await store.flowsWithLatestTrail(acme, 1, 1);
    expect(second.items.map((f) => f.name)).to.deep.equal(['bare']);
  });
});
