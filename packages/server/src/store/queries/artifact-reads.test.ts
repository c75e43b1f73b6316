// @database
/**
 * The artifact reads' statements are served by indexes on both databases: each statement they run
 * is explained as it was sent (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN with sequential scans
 * disabled, which still shows one where no index can serve), and none scans artifacts, deployments
 * or environment events; a prefix is a range of the index.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { openTestStore } from '@trailproof/server/testing';
import type { Store } from '@trailproof/server';
import type { Db } from '../database.ts';
import { explainedDb, type ExplainedDb } from './explained-db-fixture.ts';
import {
  artifactReadFacts,
  deployedFingerprints,
  findFlowArtifacts,
  fingerprintWhereabouts,
  flowArtifactsWithFacts,
  listArtifactPage,
  readFactsOf,
  searchArtifactRows,
  searchWithFacts,
} from './artifact-reads.ts';

describe('artifact reads: every statement on an index', function () {
  this.timeout(60_000);
  let store: Store;
  let cleanup: () => void | Promise<void> = () => {};
  let db: Db;
  let plansOf: ExplainedDb['plansOf'];
  let close: () => Promise<void>;
  /** A fingerprint and a commit of the seeded artifacts; the fingerprint runs in an environment. */
  const fingerprint = createHash('sha256').update('105').digest('hex');
  const commit = createHash('sha1').update('105').digest('hex');

  before(async () => {
    const opened = await openTestStore();
    ({ store, cleanup } = opened);
    const organizationId = Number((await store.ensureOrganization('acme', 1)).id);
    const flow = await store.ensureFlow(organizationId, 'app', 1);
    const trail = await store.upsertTrail(flow.id, { name: 't1' }, null, 1, null);
    ({ db, plansOf, close } = explainedDb(opened));
    // Enough artifacts, with statistics, that a planner weighs its indexes by what they hold.
    const rows = Array.from({ length: 2_000 }, (_, i) => ({
      organization_id: organizationId,
      flow_id: Number(flow.id),
      trail_id: trail.id,
      fingerprint: createHash('sha256').update(String(i)).digest('hex'),
      filename: `app-${i}`,
      template_reference_name: 'app',
      git_commit: createHash('sha1').update(String(i)).digest('hex'),
      repo_name: `acme/repo-${i % 50}`,
      build_url: 'https://ci.example/1',
      commit_url: 'https://git.example/c',
      created_at: i,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('artifacts')
        .values(rows.slice(i, i + 500))
        .execute();
    // And environments with events of many fingerprints.
    for (let e = 0; e < 20; e++) {
      const env = await store.upsertEnvironment(organizationId, { name: `env-${e}`, type: 'K8S', description: '' } as never, 1);
      const events = Array.from({ length: 100 }, (_, i) => ({
        environment_id: env.id,
        snapshot_index: i + 1,
        type: 'started',
        artifact_name: 'app',
        fingerprint: rows[(e * 100 + i) % rows.length]!.fingerprint,
        instances_before: 0,
        instances_after: 1,
        trail_id: null,
        repo_name: null,
        artifact_compliant: null,
        snapshot_compliant: null,
        reported_at: i,
      }));
      await db.insertInto('environment_events').values(events).execute();
    }
    await sql`analyze`.execute(db);
  });
  after(async () => {
    await close?.();
    await store?.close();
    await cleanup();
  });

  const noScan = (plan: string) => {
    // SQLite: "SCAN r" (no index); PostgreSQL: "Seq Scan on artifacts r".
    expect(plan).not.to.match(/^\s*SCAN (r|ev|artifacts|deployments|environment_events)\b(?! USING (COVERING )?INDEX)/m);
    expect(plan).not.to.match(/Seq Scan on (artifacts|deployments|environment_events)\b/);
  };

  it('by fingerprint or commit prefix in a flow, and a search of the organisation: a range of artifacts_org_fingerprint / artifacts_org_commit', async () => {
    for (const key of ['fingerprint', 'git_commit'] as const) {
      const [plan] = await plansOf(() => findFlowArtifacts(db, 1, 'app', { key, prefix: 'abcdef0' }, 100));
      noScan(plan!);
      expect(plan).to.contain(key === 'fingerprint' ? 'artifacts_org_fingerprint' : 'artifacts_org_commit');
    }
    const plans = await plansOf(() => searchArtifactRows(db, 1, 'abcdef0', 100));
    expect(plans).to.have.length(2);
    plans.forEach(noScan);
    expect(plans.join('\n')).to.contain('artifacts_org_fingerprint').and.to.contain('artifacts_org_commit');
  });

  it("fingerprints seen running, a fingerprint's events and environments' latest snapshots, and each list page", async () => {
    const [deployed] = await plansOf(() => deployedFingerprints(db, 1, 'abcdef0', 100));
    noScan(deployed!);
    expect(deployed).to.contain('deployments_org_fingerprint');
    // The events' read finds an environment to ask the latest snapshot of only when there is an event; with none, one statement.
    const [events] = await plansOf(() => fingerprintWhereabouts(db, 1, ['a'.repeat(64)]));
    noScan(events!);
    expect(events).to.contain('environment_events_fingerprint');
    for (const filter of [{}, { flowId: 1 }, { repoName: 'acme/shop' }])
      for (const plan of await plansOf(() => listArtifactPage(db, 1, filter, 0, 15))) noScan(plan);
  });

  // Their parts' statements are checked above and in attestation-facts.test.ts (this one trail holds every artifact).
  it("a get's and a search's one read answer what their parts answer", async () => {
    const match = { key: 'fingerprint' as const, prefix: fingerprint.slice(0, 12) };
    const rows = await findFlowArtifacts(db, 1, 'app', match, 100);
    expect(rows).to.have.length(1);
    const facts = await artifactReadFacts(db, 1, readFactsOf(rows));
    expect(facts.whereabouts.events).to.have.length(1);
    expect(await flowArtifactsWithFacts(db, 1, 'app', match, 100, 'newest of one fingerprint')).to.deep.equal({ rows, facts });
    expect(await flowArtifactsWithFacts(db, 1, 'app', { key: 'git_commit', prefix: commit }, 100, 'all')).to.deep.equal({ rows, facts });
    // Nothing found, or a prefix of several fingerprints (refused by the get): no facts read.
    expect(await flowArtifactsWithFacts(db, 1, 'app', { key: 'fingerprint', prefix: 'fffffff0' }, 100, 'all')).to.deep.equal({ rows: [], facts: null });
    const several = await flowArtifactsWithFacts(db, 1, 'app', { key: 'fingerprint', prefix: 'a' }, 100, 'newest of one fingerprint');
    expect(new Set(several.rows.map((r) => r.fingerprint)).size).to.be.greaterThan(1);
    expect(several.facts).to.equal(null);

    const search = await searchWithFacts(db, 1, commit, 100);
    expect(search.byCommit).to.deep.equal(rows);
    expect(search.rows).to.deep.equal(rows);
    expect(search.unreported).to.deep.equal([]);
    expect(search.facts).to.deep.equal({ ...facts, logIndexes: new Map() });
    expect((await searchWithFacts(db, 1, 'fffffff0', 100)).facts).to.equal(null);
  });
});
