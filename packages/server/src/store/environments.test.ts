/**
 * The environment count kept on each organisation's row (migration 0008), which an environment
 * list without filters answers as its total_count: it must equal a count of the rows.
 */
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import pg from 'pg';
import { openPostgresStore, openSqliteStore, type Store } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';

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
  const totals = async (s: Store, orgId: number, org: string) => ({
    kept: (await s.listEnvironments(orgId, org, everything)).total,
    counted: (await s.listEnvironments(orgId, org, { ...everything, types: ['K8S', 'server', 'ECS'] })).total,
  });

  it('equals the number of environments through creations, redefinitions and concurrent creations', async () => {
    const acme = Number((await store.ensureOrganization('acme', 1)).id);
    const globex = Number((await store.ensureOrganization('globex', 1)).id);
    expect(await totals(store, acme, 'acme')).to.deep.equal({ kept: 0, counted: 0 });
    for (let i = 0; i < 30; i++) await store.upsertEnvironment(acme, { name: `e${i}`, type: i % 2 ? 'K8S' : 'server' }, 2);
    // Redefining one that exists adds none.
    for (let i = 0; i < 10; i++) await store.upsertEnvironment(acme, { name: `e${i}`, type: 'ECS', description: 'again' }, 3);
    // Concurrent creations, some of the same new names (one of each pair fails on the unique name, or updates).
    const concurrent = Array.from({ length: 40 }, (_, i) => store.transaction((tx) => tx.upsertEnvironment(acme, { name: `c${i % 25}`, type: 'K8S' }, 4)));
    const settled = await Promise.allSettled(concurrent);
    expect(settled.filter((s) => s.status === 'fulfilled').length).to.be.at.least(25);
    await store.upsertEnvironment(globex, { name: 'only', type: 'K8S' }, 5);
    expect(await totals(store, acme, 'acme')).to.deep.equal({ kept: 55, counted: 55 });
    expect(await totals(store, globex, 'globex')).to.deep.equal({ kept: 1, counted: 1 });
  });

  it('is counted for the environments a database has when migration 0008 applies', async () => {
    const acme = Number((await store.ensureOrganization('acme', 1)).id);
    const globex = Number((await store.ensureOrganization('globex', 1)).id);
    for (let i = 0; i < 12; i++) await store.upsertEnvironment(acme, { name: `e${i}`, type: 'K8S' }, 2);
    for (let i = 0; i < 3; i++) await store.upsertEnvironment(globex, { name: `g${i}`, type: 'K8S' }, 2);
    await store.close();
    // Back to the database as it was before the migration: no count column, the migration not applied.
    const undo = [
      `alter table organizations drop column environment_count`,
      `delete from schema_migrations where name = '0008_environment_counts'`,
    ];
    if (schema === undefined) {
      const raw = new BetterSqlite3(location);
      for (const statement of undo) raw.exec(statement);
      raw.close();
      store = await openSqliteStore(location);
    } else {
      const client = new pg.Client({ connectionString: location });
      await client.connect();
      try {
        for (const statement of undo) await client.query(statement.replace(/\b(organizations|schema_migrations)\b/, `"${schema}".$1`));
      } finally {
        await client.end();
      }
      store = await openPostgresStore(location, { schema });
    }
    expect(await totals(store, acme, 'acme')).to.deep.equal({ kept: 12, counted: 12 });
    expect(await totals(store, globex, 'globex')).to.deep.equal({ kept: 3, counted: 3 });
  });
});
