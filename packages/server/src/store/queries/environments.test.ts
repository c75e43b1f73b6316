// @database
/**
 * The environment count kept on each organisation's row (migration 0008), which an environment
 * list without filters answers as its total_count, and the trigram index of names (migration
 * 0009, SQLite) that counts a name filter: both must answer what the rows themselves say.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Store } from '@trailproof/server';
import { migrationsUndone, openTestStore, reopenTestStore } from '@trailproof/server/testing';

describe('environment counts (total_count of an unfiltered list)', function () {
  this.timeout(60_000);
  let store: Store;
  let location = '';
  let schema: string | undefined;
  let cleanup: () => void | Promise<void> = () => {};

  beforeEach(async () => {
    ({ store, location, schema, cleanup } = await openTestStore());
  });
  afterEach(async () => {
    await store.close().catch(() => {});
    await cleanup();
  });

  const everything = { sort: 'name' as const, direction: 'asc' as const, offset: 0, limit: 5 };
  /** The unfiltered total (the kept count) and a total the rows are counted for (every type named). */
  const totals = async (s: Store, orgId: number) => ({
    kept: (await s.listEnvironments(orgId, everything)).total,
    counted: (await s.listEnvironments(orgId, { ...everything, types: ['K8S', 'server', 'ECS'] })).total,
  });

  it('equals the number of environments through creations, redefinitions and concurrent creations', async () => {
    const acme = Number((await store.ensureOrganization('acme', 1)).id);
    const globex = Number((await store.ensureOrganization('globex', 1)).id);
    expect(await totals(store, acme)).to.deep.equal({ kept: 0, counted: 0 });
    for (let i = 0; i < 30; i++) await store.upsertEnvironment(acme, { name: `e${i}`, type: i % 2 ? 'K8S' : 'server' }, 2);
    // Redefining one that exists adds none.
    for (let i = 0; i < 10; i++) await store.upsertEnvironment(acme, { name: `e${i}`, type: 'ECS', description: 'again' }, 3);
    // Concurrent creations, some of the same new names (one of each pair fails on the unique name, or updates).
    const concurrent = Array.from({ length: 40 }, (_, i) => store.transaction((tx) => tx.upsertEnvironment(acme, { name: `c${i % 25}`, type: 'K8S' }, 4)));
    const settled = await Promise.allSettled(concurrent);
    expect(settled.filter((s) => s.status === 'fulfilled').length).to.be.at.least(25);
    await store.upsertEnvironment(globex, { name: 'only', type: 'K8S' }, 5);
    expect(await totals(store, acme)).to.deep.equal({ kept: 55, counted: 55 });
    expect(await totals(store, globex)).to.deep.equal({ kept: 1, counted: 1 });
  });

  it('is counted for the environments a database has when migration 0008 applies', async () => {
    const acme = Number((await store.ensureOrganization('acme', 1)).id);
    const globex = Number((await store.ensureOrganization('globex', 1)).id);
    for (let i = 0; i < 12; i++) await store.upsertEnvironment(acme, { name: `e${i}`, type: 'K8S' }, 2);
    for (let i = 0; i < 3; i++) await store.upsertEnvironment(globex, { name: `g${i}`, type: 'K8S' }, 2);
    await store.close();
    // Back to the database as it was before the migration: no count column, neither it nor the later ones applied.
    store = await reopenTestStore({ location, schema }, migrationsUndone('0008_environment_counts'));
    expect(await totals(store, acme)).to.deep.equal({ kept: 12, counted: 12 });
    expect(await totals(store, globex)).to.deep.equal({ kept: 3, counted: 3 });
  });

  it('finds the environments whose name contains the filter, case-insensitively, as a scan of the names does', async () => {
    const acme = Number((await store.ensureOrganization('acme', 1)).id);
    const other = Number((await store.ensureOrganization('other', 1)).id);
    const nameChar = fc.constantFrom(...'abcXYZ019._~-'.split(''));
    const names = fc.sample(
      fc.array(nameChar, { minLength: 1, maxLength: 10 }).map((c) => c.join('')),
      { numRuns: 400, seed: 7 },
    );
    const unique = [...new Map(names.map((n) => [n, n])).values()];
    for (const [i, name] of unique.entries()) {
      await store.upsertEnvironment(acme, { name, type: i % 3 ? 'K8S' : 'ECS', tags: { team: `t${i % 4}` } }, 2);
      // Redefined (the name unchanged; its type K8S and no tags now): still found once.
      if (i % 5 === 0) await store.upsertEnvironment(acme, { name, type: 'K8S', description: 'again' }, 3);
    }
    // The same names in another organisation are never counted.
    for (const name of unique.slice(0, 50)) await store.upsertEnvironment(other, { name, type: 'K8S' }, 2);

    const needle = fc
      .oneof(
        fc.constantFrom(...unique).chain((n) => fc.tuple(fc.nat(n.length), fc.integer({ min: 0, max: 6 })).map(([at, length]) => n.slice(at, at + length))),
        fc.array(fc.constantFrom(...'aXz1.-"%_\\é '.split('')), { maxLength: 5 }).map((c) => c.join('')),
      )
      .map((n) => (n.length % 2 ? n.toUpperCase() : n));
    await fc.assert(
      fc.asyncProperty(
        needle,
        fc.constantFrom<string[] | undefined>(undefined, ['ECS']),
        fc.constantFrom<string[] | undefined>(undefined, ['team:t1']),
        async (names, types, tags) => {
          const expected = unique.filter(
            (n, i) =>
              n.toLowerCase().includes(names.toLowerCase()) &&
              (types === undefined || ((i % 3 ? 'K8S' : 'ECS') === types[0] && i % 5 !== 0)) &&
              (tags === undefined || (`team:t${i % 4}` === tags[0] && i % 5 !== 0)),
          );
          const found = await store.listEnvironments(acme, { names, types, tags, sort: 'name', direction: 'asc', offset: 0, limit: 1_000 });
          const context = JSON.stringify({ names, types, tags });
          expect(found.total, context).to.equal(expected.length);
          expect(found.rows.map((e) => e.name).sort(), context).to.deep.equal([...expected].sort());
        },
      ),
      // Always among them: names of three characters or more that the other organisation has too.
      {
        numRuns: 200,
        examples: unique
          .slice(0, 50)
          .filter((n) => n.length >= 3)
          .slice(0, 5)
          .map((n) => [n, undefined, undefined] as [string, undefined, undefined]),
      },
    );
  });
});
