// @database
/**
 * The console's environments list reads a page from an index of `environments` in each order
 * (by name, by last change both ways, never-reported as the oldest), each row with its latest
 * snapshot by the snapshots' key, and counts from the organisation's row: no statement scans the
 * environments or the snapshots, and the rows are the organisation's only.
 */
import { expect } from 'chai';
import { sql } from 'kysely';
import { openTestStore } from '@trailproof/server/testing';
import type { Store } from '@trailproof/server';
import { explainedDb, type ExplainedDb } from './explained-db-fixture.ts';
import { environmentStatusPage } from './environment-status.ts';

describe('environments list reads: a page on an index, the latest snapshot by key', function () {
  this.timeout(60_000);
  let store: Store;
  let cleanup: () => void | Promise<void> = () => {};
  let explained: ExplainedDb;
  let organizationId = 0;

  before(async () => {
    const opened = await openTestStore();
    ({ store, cleanup } = opened);
    organizationId = Number((await store.ensureOrganization('acme', 1)).id);
    const other = Number((await store.ensureOrganization('globex', 1)).id);
    explained = explainedDb(opened);
    // 300 environments of acme, one in three never reported; the others with 20 snapshots (as a reported environment has
    // many), the latest running one artifact. Written as rows: the plans depend on what the tables hold, not on the chain.
    const running = JSON.stringify([{ name: 'api', fingerprint: 'f'.repeat(64), instance_count: 1, creation_timestamp: 1, instances: [] }]);
    for (let i = 0; i < 300; i++) {
      const { id } = await store.upsertEnvironment(organizationId, { name: `env-${String(i).padStart(3, '0')}`, type: 'K8S', policies: i % 2 ? ['p'] : [] }, 1);
      if (i % 3 === 0) continue;
      const at = 1_000 + ((i * 7) % 300);
      const snapshots = Array.from({ length: 20 }, (_, k) => ({
        environment_id: id,
        snapshot_index: k + 1,
        artifacts: k === 19 ? running : '[]',
        created_by_token: null,
        created_at: at - 19 + k,
        compliant: k === 19 ? Number(i % 2 === 0) : 1,
      }));
      await explained.db.insertInto('snapshots').values(snapshots).execute();
      await store.recordReport(id, { at, changed: true, state: i % 2 === 0 });
    }
    await store.upsertEnvironment(other, { name: 'env-000', type: 'K8S' }, 1);
    await sql`analyze`.execute(explained.db);
  });
  after(async () => {
    await explained?.close();
    await store?.close();
    await cleanup();
  });

  const noScan = (plan: string) => {
    // SQLite: "SCAN environments" (no index); PostgreSQL: "Seq Scan on environments".
    expect(plan).not.to.match(/^\s*(--)?SCAN (e|environments|s|l|snapshots)\b(?! USING (COVERING )?INDEX)/m);
    expect(plan).not.to.match(/Seq Scan on (environments|snapshots)\b/);
  };

  it('every order is a range of its index, with no sort of the organisation’s environments', async () => {
    for (const sort of ['name', 'changed'] as const)
      for (const direction of ['asc', 'desc'] as const) {
        const plans = await explained.plansOf(() => environmentStatusPage(explained.db, organizationId, { sort, direction }, 25, 25));
        plans.forEach(noScan);
        const page = plans.join('\n');
        expect(page, `${sort} ${direction}`).to.match(sort === 'name' ? /environments_org_name_lower/ : /environments_org_changed_name/);
        expect(page, `${sort} ${direction}`).not.to.match(/TEMP B-TREE|\bSort\b/);
        // The latest snapshot of each of the page's environments is found by key, not by hashing every snapshot.
        expect(page, `${sort} ${direction}`).not.to.match(/Hash.*Join|Seq Scan/);
      }
  });

  it('answers the page in the order asked, each with its latest snapshot, and the count kept', async () => {
    const byName = await environmentStatusPage(explained.db, organizationId, { sort: 'name', direction: 'asc' }, 0, 3);
    expect(byName.total).to.equal(300);
    expect(byName.items.map((e) => e.name)).to.deep.equal(['env-000', 'env-001', 'env-002']);
    const [never, reported, other] = byName.items;
    expect(never).to.deep.include({ snapshot: null, state: null, lastReportedAt: null, policies: [] });
    expect(reported!.policies).to.deep.equal(['p']);
    expect(reported!.snapshot).to.deep.include({ index: 20, createdAt: 1_007, compliant: false });
    expect(reported!.snapshot!.artifacts.map((a) => a.name)).to.deep.equal(['api']);
    expect(other).to.deep.include({ state: true });
    // By last change, newest first, the never reported last; ascending, they come first.
    const newest = await environmentStatusPage(explained.db, organizationId, { sort: 'changed', direction: 'desc' }, 0, 300);
    const times = newest.items.map((e) => e.snapshot?.createdAt ?? 0);
    expect(times).to.deep.equal([...times].sort((a, b) => b - a));
    expect(newest.items.at(-1)!.snapshot).to.equal(null);
    const oldest = await environmentStatusPage(explained.db, organizationId, { sort: 'changed', direction: 'asc' }, 0, 1);
    expect(oldest.items[0]!.snapshot).to.equal(null);
  });
});
