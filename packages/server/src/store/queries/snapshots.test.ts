// @database
/** Snapshots found by time and listed without their artifacts, with times set exactly (a report stamps its own). */
import { expect } from 'chai';
import { openTestStore } from '@trailproof/server/testing';
import type { Store } from '@trailproof/server';

describe('snapshots store: by time, and summaries', () => {
  let store: Store;
  let cleanup: () => void | Promise<void> = () => {};
  let environmentId = 0;
  const running = (name: string) => [{ name, fingerprint: name.padEnd(64, '0'), instance_count: 1, creation_timestamp: 1, instances: [] }];

  before(async () => {
    ({ store, cleanup } = await openTestStore());
    const organizationId = Number((await store.ensureOrganization('acme', 1)).id);
    environmentId = (await store.upsertEnvironment(organizationId, { name: 'prod', type: 'server' }, 1)).id;
    // Snapshot 1 at 100 (nothing running, so no events), 2 at 200 (non-compliant), 3 at 300 (compliant).
    await store.insertSnapshot(environmentId, 1, [], 100, null);
    await store.insertSnapshot(environmentId, 2, running('a'), 200, null);
    await store.insertSnapshot(environmentId, 3, running('b'), 300, null);
    const event = (snapshotIndex: number, name: string, type: 'started' | 'exited', compliant: boolean) => ({
      environmentId,
      snapshotIndex,
      type,
      artifactName: name,
      fingerprint: name.padEnd(64, '0'),
      instancesBefore: type === 'started' ? 0 : 1,
      instancesAfter: type === 'started' ? 1 : 0,
      trailId: null,
      repoName: null,
      artifactCompliant: compliant,
      snapshotCompliant: snapshotIndex === 3,
      reportedAt: snapshotIndex * 100,
    });
    await store.insertEnvironmentEvents([event(2, 'a', 'started', false), event(3, 'a', 'exited', false), event(3, 'b', 'started', true)]);
  });
  after(async () => {
    await store.close();
    await cleanup();
  });

  it('snapshotIndexAt: the last snapshot made at or before the time', async () => {
    const at = (t: number) => store.snapshotIndexAt(environmentId, t);
    expect([await at(99), await at(100), await at(199.5), await at(200), await at(299), await at(300), await at(1e10)]).to.deep.equal([
      undefined,
      1,
      1,
      2,
      2,
      3,
      3,
    ]);
  });

  it('listSnapshotSummaries: from, to, the state recorded with the events, a range and a page', async () => {
    const all = await store.listSnapshotSummaries(environmentId, { oldestFirst: true, offset: 0, limit: 10 });
    expect(all).to.deep.equal({
      total: 3,
      items: [
        { index: 1, from: 100, to: 200, compliant: true },
        { index: 2, from: 200, to: 300, compliant: false },
        { index: 3, from: 300, to: null, compliant: true },
      ],
    });
    const page = await store.listSnapshotSummaries(environmentId, { firstIndex: 2, lastTime: 300, oldestFirst: false, offset: 1, limit: 1 });
    expect(page).to.deep.equal({ total: 2, items: [{ index: 2, from: 200, to: 300, compliant: false }] });
  });
});
