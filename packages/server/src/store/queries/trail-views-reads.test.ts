// @database
/**
 * The trails view's statements are served by indexes on both databases: each statement is
 * explained as it was sent (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN with sequential scans
 * disabled, which still shows one where no index can serve). None scans the trails table: the
 * organisation's range of `trails_org_created` (or the flow's, or the commit's) bounds each read.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { openTestStore } from '@trailproof/server/testing';
import type { Store } from '@trailproof/server';
import { isPostgres, type Db } from '../database.ts';
import { explainedDb, type ExplainedDb } from './explained-db-fixture.ts';
import { listTrailView, trailsNamed } from './trail-views.ts';

describe('trails view reads: every statement on an index', function () {
  this.timeout(60_000);
  let store: Store;
  let cleanup: () => void | Promise<void> = () => {};
  let db: Db;
  let plansOf: ExplainedDb['plansOf'];
  let close: () => Promise<void>;
  let organizationId = 0;
  let flowId = 0;

  before(async () => {
    const opened = await openTestStore();
    ({ store, cleanup } = opened);
    organizationId = Number((await store.ensureOrganization('acme', 1)).id);
    const other = Number((await store.ensureOrganization('globex', 1)).id);
    // Ten flows, as an organisation has many: one flow's trails are then a small part of them all.
    const flowIds: number[] = [];
    for (let f = 0; f < 10; f++) flowIds.push(Number((await store.ensureFlow(organizationId, `app-${f}`, 1)).id));
    flowId = flowIds[0]!;
    const otherFlow = Number((await store.ensureFlow(other, 'app', 1)).id);
    ({ db, plansOf, close } = explainedDb(opened));
    // Trails of two organisations, with statistics, so that a planner weighs its indexes by what they hold.
    const rows = Array.from({ length: 2_000 }, (_, i) => {
      const commit = createHash('sha1').update(String(i)).digest('hex');
      return {
        flow_id: i % 4 ? flowIds[i % 10]! : otherFlow,
        organization_id: i % 4 ? organizationId : other,
        name: `t-${i}`,
        description: '',
        commit_sha: commit,
        git_commit_info: JSON.stringify({ sha1: commit, branch: i % 3 ? 'main' : 'feature' }),
        created_at: i,
        last_modified_at: i,
      };
    });
    for (let i = 0; i < rows.length; i += 250)
      await db
        .insertInto('trails')
        .values(rows.slice(i, i + 250))
        .execute();
    await sql`analyze`.execute(db);
  });
  after(async () => {
    await close?.();
    await store?.close();
    await cleanup();
  });

  const noScan = (plan: string) => {
    // SQLite: "SCAN trails" (no index); PostgreSQL: "Seq Scan on trails".
    expect(plan).not.to.match(/^\s*(--)?SCAN (trails|flows)\b(?! USING (COVERING )?INDEX)/m);
    expect(plan).not.to.match(/Seq Scan on (trails|flows)\b/);
  };
  const newest = { by: 'created', direction: 'desc' } as const;

  it('the view unfiltered, by flow, branch or time range, sorted by any column: a range of the organisation or the flow', async () => {
    const filters = [{}, { flowId: 0 }, { branch: 'main' }, { from: 100, until: 900 }, { flowId: 0, branch: 'feature', from: 10 }];
    for (const filter of filters) {
      for (const by of ['created', 'name', 'flow'] as const) {
        const plans = await plansOf(() =>
          listTrailView(db, organizationId, { ...filter, flowId: 'flowId' in filter ? flowId : undefined }, { by, direction: 'asc' }, 0, 25),
        );
        plans.forEach(noScan);
        expect(plans.join('\n'), JSON.stringify({ filter, by })).to.match(/trails_(org|flow)_created|trails_pkey|INTEGER PRIMARY KEY/);
      }
    }
  });

  it("a commit prefix is a range of the organisation's commits (trails_org_commit), and the page is the rows asked for", async () => {
    const commit = createHash('sha1').update('7').digest('hex');
    const plans = await plansOf(() => listTrailView(db, organizationId, { commitPrefix: commit.slice(0, 9) }, newest, 0, 25));
    plans.forEach(noScan);
    // Without statistics SQLite read the organisation's whole range of trails_org_created for each search (100,000 trails: 5 searches a second).
    expect(plans.slice(0, 2).join('\n')).to.match(
      isPostgres(db) ? /trails_(org_)?commit/ : /trails_org_commit \(organization_id=\? AND commit_sha>\? AND commit_sha<\?\)/,
    );
    const page = await listTrailView(db, organizationId, { commitPrefix: commit.slice(0, 9) }, newest, 0, 25);
    expect(page.items.map((t) => t.name)).to.deep.equal(['t-7']);
    expect(page.total).to.equal(1);
    // Trail 4 is globex's: its commit finds nothing in acme.
    expect((await listTrailView(db, organizationId, { commitPrefix: createHash('sha1').update('4').digest('hex') }, newest, 0, 25)).total).to.equal(0);
  });

  it("unfiltered or by flow alone, the total is the count the organisation's or the flow's row keeps: no trail is counted", async () => {
    for (const filter of [{}, { flowId }]) {
      const plans = await plansOf(() => listTrailView(db, organizationId, filter, newest, 0, 25));
      // SQLite reads the row by its key; PostgreSQL by its key's index (an index or bitmap scan, by what it knows of the table).
      expect(plans[0], JSON.stringify(filter)).to.match(
        /SEARCH (organizations|flows) USING INTEGER PRIMARY KEY|Index Scan (using|on) (organizations|flows)_pkey/,
      );
      expect(plans[0], JSON.stringify(filter)).not.to.match(/trails/);
    }
    // acme holds the trails whose number is not a multiple of 4, and app-0 every tenth of all of them (both inserted bare, counted by the trigger).
    const counted = async (where: 'organization_id' | 'flow_id', id: number) =>
      Number(
        (
          await db
            .selectFrom('trails')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where(where, '=', id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect((await listTrailView(db, organizationId, {}, newest, 0, 25)).total).to.equal(await counted('organization_id', organizationId));
    expect((await listTrailView(db, organizationId, {}, newest, 0, 25)).total).to.equal(1_500);
    expect((await listTrailView(db, organizationId, { flowId }, newest, 0, 25)).total).to.equal(await counted('flow_id', flowId));
    // Begun again (a re-run job), a trail is counted once; a new one adds one, to its flow and its organisation.
    const before = await store.listTrailPage(flowId, 0, 1);
    await store.upsertTrail(flowId, { name: 't-10' }, null, 5_000, null);
    expect((await store.listTrailPage(flowId, 0, 1)).total).to.equal(before.total);
    await store.upsertTrail(flowId, { name: 'counted-once' }, null, 5_000, null);
    await store.upsertTrail(flowId, { name: 'counted-once' }, null, 5_001, null);
    expect((await store.listTrailPage(flowId, 0, 1)).total).to.equal(before.total + 1);
    expect((await listTrailView(db, organizationId, {}, newest, 0, 25)).total).to.equal(1_501);
    expect((await store.listOrganizationTrailPage(organizationId, {}, 0, 1)).total).to.equal(1_501);
  });

  it("trails by the start of their name: a range of trails_org_name read in its order, by name then newest, LIKE's wildcards matched as text", async () => {
    for (const prefix of ['t-1', 'nothing-is-named-so', 't-19']) {
      const plans = await plansOf(() => trailsNamed(db, organizationId, prefix, 20));
      plans.forEach(noScan);
      // The first statement is the range: on the name index, in its order (no sort of the matches).
      expect(plans[0], prefix).to.match(/trails_org_name/);
      expect(plans[0], prefix).not.to.match(/TEMP B-TREE|\bSort\b/);
    }
    // acme holds the trails whose number is not a multiple of 4.
    const acmeNames = Array.from({ length: 2_000 }, (_, i) => i)
      .filter((i) => i % 4)
      .map((i) => `t-${i}`);
    const expected = acmeNames.filter((n) => n.startsWith('t-19')).sort();
    expect((await trailsNamed(db, organizationId, 't-19', 20)).map((t) => t.name)).to.deep.equal(expected.slice(0, 20));
    expect((await trailsNamed(db, organizationId, 't-1999', 20)).map((t) => t.name)).to.deep.equal(['t-1999']);
    expect(await trailsNamed(db, organizationId, 'nothing-is-named-so', 20)).to.deep.equal([]);
    expect(await trailsNamed(db, organizationId, 't_1%', 20)).to.deep.equal([]);
    expect(await trailsNamed(db, organizationId, 'T-19', 20)).to.deep.equal([]);
  });
});
