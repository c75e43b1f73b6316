/**
 * SQLite's reader threads (reader-threads.ts): lists run off the event loop, answer what the
 * store's own read connection answers, and see every write committed before they were asked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteStore, type Store } from '@trailproof/server';

describe('SQLite reader threads', function () {
  this.timeout(60_000);
  let dir = '';
  let file = '';
  let organizationId = 0;
  const stores: Store[] = [];
  const open = async (readerThreads: number) => {
    const store = await openSqliteStore(file, { readerThreads, threadsAtOpen: true });
    stores.push(store);
    return store;
  };
  const day = 86_400;
  const base = 1_760_000_000 - (1_760_000_000 % day);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trailproof-readers-'));
    file = join(dir, 'test.db');
    const store = await openSqliteStore(file, { readerThreads: 0 });
    organizationId = Number((await store.ensureOrganization('acme', 0)).id);
    const environments: Array<{ name: string; id: number }> = [];
    for (let i = 0; i < 300; i++) {
      const name = `${i % 2 ? 'prod' : 'dev'}-${i}`;
      const { id } = await store.upsertEnvironment(organizationId, { name, type: 'K8S', tags: { team: `t${i % 7}` } }, base + i);
      environments.push({ name, id });
    }
    const deployments = Array.from({ length: 3_000 }, (_, i) => {
      const env = environments[i % 10]!;
      return {
        organizationId,
        environmentId: env.id,
        envName: env.name,
        snapshotIndex: i + 1,
        fingerprint: `f${i}`,
        artifactName: `a${i}`,
        deployedAt: base + ((i * 7_919) % (30 * day)),
        trailId: null,
        repoName: i % 3 ? 'acme/a' : 'acme/b',
      };
    });
    for (let i = 0; i < deployments.length; i += 500) await store.insertDeployments(deployments.slice(i, i + 500));
    await store.close();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const window = { start: base, end: base + 30 * day };

  /** How many turns the event loop took while `work` ran: none when it ran on the event loop itself. */
  async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    await work();
    done = true;
    return turns;
  }

  it('runs lists off the event loop', async () => {
    const threads = await open(2);
    const inline = await open(0);
    const list = (store: Store) => () => store.listDeployments(organizationId, { ...window, offset: 2_000, limit: 50 });
    // The same list on the store's own connection runs to its end before the loop turns again:
    // this is what the threads are for, and it shows that the measure below can fail.
    expect(await turnsDuring(list(inline))).to.equal(0);
    expect(await turnsDuring(list(threads))).to.be.greaterThan(0);
    expect(
      await turnsDuring(() => threads.listEnvironments(organizationId, { names: 'prod', sort: 'name', direction: 'asc', offset: 0, limit: 20 })),
    ).to.be.greaterThan(0);
  });

  it("answers as the store's own connection does", async () => {
    const threads = await open(2);
    const inline = await open(0);
    const deploymentFilters = [
      { ...window, offset: 0, limit: 15 },
      { ...window, envName: 'dev-4', offset: 0, limit: 15 },
      { ...window, repoName: 'acme/b', offset: 30, limit: 10 },
      { start: base + 2 * day + 100, end: base + 9 * day, offset: 5, limit: 25 },
      // The compliance filter: counted row by row, never skipping days.
      { ...window, compliant: false, offset: 1_200, limit: 10 },
      { ...window, envName: 'dev-4', compliant: true, offset: 0, limit: 10 },
      { ...window, offset: 0, limit: 0 },
    ];
    for (const f of deploymentFilters) {
      const expected = await inline.listDeployments(organizationId, f);
      expect(expected.rows.length, JSON.stringify(f)).to.equal(Math.min(f.limit, Math.max(0, expected.total - f.offset)));
      expect(await threads.listDeployments(organizationId, f), JSON.stringify(f)).to.deep.equal(expected);
    }
    const environmentFilters = [
      { sort: 'name' as const, direction: 'desc' as const, offset: 0, limit: 20 },
      { names: 'prod-1', sort: 'last_modified_at' as const, direction: 'asc' as const, offset: 3, limit: 20 },
      { tags: ['team:t3', 'team:t5'], sort: 'last_changed_at' as const, direction: 'desc' as const, offset: 0, limit: 50 },
    ];
    for (const f of environmentFilters) {
      const expected = await inline.listEnvironments(organizationId, f);
      expect(expected.total, JSON.stringify(f)).to.be.greaterThan(0);
      expect(await threads.listEnvironments(organizationId, f), JSON.stringify(f)).to.deep.equal(expected);
    }
    // An artifact read's facts come back in one message, maps included.
    const of = { trailIds: [1, 2], artifactIds: [1, 2], fingerprints: ['f1', 'f2', 'f11', 'none'] };
    expect(await turnsDuring(() => threads.artifactReadFacts(organizationId, of))).to.be.greaterThan(0);
    expect(await threads.artifactReadFacts(organizationId, of)).to.deep.equal(await inline.artifactReadFacts(organizationId, of));
  });

  it('sees every write committed before the list was asked for', async () => {
    const store = await open(2);
    const environment = await store.upsertEnvironment(organizationId, { name: 'fresh', type: 'server' }, base);
    for (let i = 0; i < 20; i++) {
      const before = await store.listDeployments(organizationId, { ...window, envName: 'fresh', offset: 0, limit: 1 });
      expect(before.total).to.equal(i);
      await store.insertDeployments([
        {
          organizationId,
          environmentId: environment.id,
          envName: 'fresh',
          snapshotIndex: i + 1,
          fingerprint: `fresh${i}`,
          artifactName: `fresh${i}`,
          deployedAt: base + day + i,
          trailId: null,
          repoName: null,
        },
      ]);
      const after = await store.listDeployments(organizationId, { ...window, envName: 'fresh', offset: 0, limit: 1 });
      expect(after.total).to.equal(i + 1);
      expect(after.rows[0]!.fingerprint).to.equal(`fresh${i}`);
    }
  });

  it('keeps serving lists while many run at once, each answered with its own result', async () => {
    const store = await open(2);
    const envs = Array.from({ length: 10 }, (_, i) => `${i % 2 ? 'prod' : 'dev'}-${i}`);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => store.listDeployments(organizationId, { ...window, envName: envs[i % 10], offset: 0, limit: 5 })),
    );
    results.forEach((result, i) => {
      expect(result.total).to.equal(300);
      for (const item of result.rows) expect(item.env_name).to.equal(envs[i % 10]);
    });
  });
});
