// @database
/**
 * Artifacts found by the start of their name (the console's search): a range of the index of
 * migration 0029 on both databases, byte by byte (PostgreSQL's collation set aside), in name order,
 * LIKE's wildcards nothing special, another organisation's never.
 */
import { expect } from 'chai';
import { sql } from 'kysely';
import { openTestStore } from '@trailproof/server/testing';
import type { Store } from '@trailproof/server';
import type { Db } from '../database.ts';
import { explainedDb, type ExplainedDb } from './explained-db-fixture.ts';
import { artifactsNamed } from './artifact-reads.ts';

describe('artifacts by the start of their name', function () {
  this.timeout(60_000);
  let store: Store;
  let cleanup: () => void | Promise<void> = () => {};
  let db: Db;
  let plansOf: ExplainedDb['plansOf'];
  let close: () => Promise<void>;
  let organizationId = 0;
  const names = ['svc/a:1', 'svc/a:2', 'svc/a-b:1', 'svc/A:1', 'svc/a_%:1', 'svc/ä:1', 'svc/a:1.0'];

  before(async () => {
    const opened = await openTestStore();
    ({ store, cleanup } = opened);
    organizationId = Number((await store.ensureOrganization('acme', 1)).id);
    const other = Number((await store.ensureOrganization('globex', 1)).id);
    for (const [org, flow] of [
      [organizationId, 'app'],
      [other, 'app'],
    ] as const) {
      const flowRow = await store.ensureFlow(org, flow, 1);
      await store.upsertTrail(flowRow.id, { name: 't1' }, null, 1, null);
    }
    const artifact = (org: number, filename: string, i: number) => ({
      organizationId: org,
      flow: 'app',
      trail: 't1',
      fingerprint: i.toString(16).padStart(64, '0'),
      filename,
      templateReferenceName: 'image',
      gitCommit: null,
      gitCommitInfo: null,
      repoInfo: null,
      buildUrl: 'https://ci.example.com/1',
      commitUrl: 'https://example.com/c',
      repoUrl: null,
      externalUrls: null,
      annotations: null,
      createdBy: null,
      at: 1 + i,
    });
    // Many artifacts of other names, so that a planner weighs the index by what it holds.
    const all = [
      ...names.map((n, i) => artifact(organizationId, n, i)),
      artifact(other, 'svc/a:secret', 100),
      ...Array.from({ length: 400 }, (_, i) => artifact(organizationId, `other/${i}`, 200 + i)),
    ];
    for (let i = 0; i < all.length; i += 50) await Promise.all(all.slice(i, i + 50).map((a) => store.appendArtifact(a)));
    ({ db, plansOf, close } = explainedDb(opened));
    await sql`analyze`.execute(db);
  });
  after(async () => {
    await close?.();
    await store?.close();
    await cleanup();
  });

  const found = async (prefix: string, limit = 100) => (await artifactsNamed(db, organizationId, prefix, limit)).map((r) => r.filename);

  it('by name, byte by byte: case and accents count, wildcards are text, the limit holds', async () => {
    expect(await found('svc/a')).to.deep.equal(['svc/a-b:1', 'svc/a:1', 'svc/a:1.0', 'svc/a:2', 'svc/a_%:1']);
    expect(await found('svc/a:')).to.deep.equal(['svc/a:1', 'svc/a:1.0', 'svc/a:2']);
    expect(await found('svc/a_%')).to.deep.equal(['svc/a_%:1']);
    expect(await found('svc/A')).to.deep.equal(['svc/A:1']);
    expect(await found('svc/ä')).to.deep.equal(['svc/ä:1']);
    expect(await found('svc/a', 2)).to.deep.equal(['svc/a-b:1', 'svc/a:1']);
    expect(await found('svc/a:secret')).to.deep.equal([]);
    expect(await found('')).to.deep.equal([]);
  });

  it('is a range of the index on (organisation, name), on either database', async () => {
    const plans = await plansOf(() => artifactsNamed(db, organizationId, 'svc/a', 100));
    expect(plans.join('\n')).to.match(/artifacts_org_filename/);
    expect(plans.join('\n'))
      .not.to.match(/^\s*(--)?SCAN (r|artifacts)\b(?! USING (COVERING )?INDEX)/m)
      .and.not.to.match(/Seq Scan on artifacts\b/);
  });
});
