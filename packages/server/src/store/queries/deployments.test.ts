// @database
import { expect } from 'chai';
import fc from 'fast-check';
import type { Store } from '@trailproof/server';
import { migrationsUndone, openTestStore, reopenTestStore } from '@trailproof/server/testing';
import { deepPageOffset } from './deployment-window.ts';

describe('deployment counts (per-day and per-hour rollups)', function () {
  this.timeout(120_000);

  it('equal a count of the rows themselves, for any window and filter', async () => {
    const { store, cleanup } = await openTestStore();
    try {
      const org = await store.ensureOrganization('acme', 0);
      const day = 86_400;
      const base = 1_760_000_000 - (1_760_000_000 % day);
      const envs = ['prod', 'staging', 'dev'];
      const repos = ['acme/a', 'acme/b', null];
      const ids = new Map<string, number>();
      for (const name of envs) ids.set(name, (await store.upsertEnvironment(Number(org.id), { name, type: 'server' }, base)).id);
      // 600 deployments over 40 days, some exactly on day or hour boundaries, some at fractions
      // of a second, inserted in batches as reports do.
      const hour = 3_600;
      const all = Array.from({ length: 600 }, (_, i) => {
        const env = envs[i % 3]!;
        const offset =
          i % 7 === 0 ? Math.floor(i / 15) * day : i % 11 === 0 ? ((i * 37) % (40 * 24)) * hour : ((i * 5_743) % (40 * day)) + (i % 4 === 0 ? 0.25 : 0);
        return {
          organizationId: Number(org.id),
          environmentId: ids.get(env)!,
          envName: env,
          snapshotIndex: i + 1,
          fingerprint: `f${i}`,
          artifactName: `a${i}`,
          deployedAt: base + offset,
          trailId: null,
          repoName: repos[i % 3 === 0 ? 0 : i % 5 === 0 ? 2 : 1]!,
        };
      });
      // Windows at any second, or starting and ending on an hour (or a second either side of one).
      const onHours = (min: number, max: number) => fc.tuple(fc.integer({ min, max }), fc.constantFrom(-1, 0, 1)).map(([h, nudge]) => h * hour + nudge);
      for (let i = 0; i < all.length; i += 50) await store.insertDeployments(all.slice(i, i + 50));

      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.integer({ min: -2 * day, max: 42 * day }), onHours(-48, 42 * 24)),
          fc.oneof(fc.integer({ min: 0, max: 45 * day }), onHours(0, 45 * 24)),
          fc.constantFrom<string | undefined>(undefined, ...envs),
          fc.constantFrom<string | undefined>(undefined, 'acme/a', 'acme/b'),
          async (from, length, envName, repoName) => {
            const start = base + from;
            const end = start + length;
            const expected = all.filter(
              (d) =>
                d.deployedAt >= start &&
                d.deployedAt <= end &&
                (envName === undefined || d.envName === envName) &&
                (repoName === undefined || d.repoName === repoName),
            ).length;
            const { total } = await store.listDeployments(Number(org.id), { start, end, envName, repoName, offset: 0, limit: 1 });
            expect(total, JSON.stringify({ from, length, envName, repoName })).to.equal(expected);
          },
        ),
        { numRuns: 600 },
      );
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it('pages deep into the window (skipping whole days by their counts) as a plain offset does', async () => {
    const { store, cleanup } = await openTestStore();
    try {
      const org = await store.ensureOrganization('acme', 0);
      const day = 86_400;
      const base = 1_760_000_000 - (1_760_000_000 % day);
      const envs = ['prod', 'staging'];
      const ids = new Map<string, number>();
      for (const name of envs) ids.set(name, (await store.upsertEnvironment(Number(org.id), { name, type: 'server' }, base)).id);
      // 4,000 deployments over 80 days (more than one read of per-day counts), unevenly: some days empty, some on a boundary, equal times for ties.
      const all = Array.from({ length: 4_000 }, (_, i) => {
        const env = envs[i % 5 === 0 ? 1 : 0]!;
        const dayOf = (i * 7) % 80 === 13 ? 12 : (i * 7) % 80;
        return {
          organizationId: Number(org.id),
          environmentId: ids.get(env)!,
          envName: env,
          snapshotIndex: i + 1,
          fingerprint: `f${i}`,
          artifactName: `a${i}`,
          deployedAt: base + dayOf * day + (i % 11 === 0 ? 0 : (i * 3_181) % day) - (i % 3 === 0 ? i % 2 : 0),
          trailId: null,
          repoName: i % 4 ? 'acme/a' : null,
        };
      });
      for (let i = 0; i < all.length; i += 500) await store.insertDeployments(all.slice(i, i + 500));
      // Newest first, ties by insertion order (the id), newest id first.
      const newestFirst = all.map((d, id) => ({ ...d, id })).sort((a, b) => b.deployedAt - a.deployedAt || b.id - a.id);

      const check = async (start: number, end: number, envName: string | undefined, repoName: string | undefined, offset: number, limit: number) => {
        const expected = newestFirst.filter(
          (d) =>
            d.deployedAt >= start &&
            d.deployedAt <= end &&
            (envName === undefined || d.envName === envName) &&
            (repoName === undefined || d.repoName === repoName),
        );
        const { rows: items, total } = await store.listDeployments(Number(org.id), { start, end, envName, repoName, offset, limit });
        const context = JSON.stringify({ start, end, envName, repoName, offset, limit });
        expect(total, context).to.equal(expected.length);
        expect(
          items.map((d) => d.fingerprint),
          context,
        ).to.deep.equal(expected.slice(offset, offset + limit).map((d) => d.fingerprint));
      };
      // Pages that start on, just before and just after each day boundary (where whole days are skipped).
      const start = base + day / 2;
      const end = base + 79 * day + day / 3;
      const inWindow = newestFirst.filter((d) => d.deployedAt >= start && d.deployedAt <= end);
      for (let i = 1; i < inWindow.length; i++) {
        if (Math.floor(inWindow[i]!.deployedAt / day) === Math.floor(inWindow[i - 1]!.deployedAt / day) || i < deepPageOffset) continue;
        for (const offset of [i - 1, i, i + 1]) await check(start, end, undefined, undefined, offset, 3);
      }

      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: -day, max: 20 * day }),
          fc.integer({ min: 0, max: 82 * day }),
          fc.constantFrom<string | undefined>(undefined, ...envs),
          fc.constantFrom<string | undefined>(undefined, 'acme/a'),
          fc.integer({ min: 0, max: 4_100 }),
          fc.integer({ min: 1, max: 60 }),
          (from, length, envName, repoName, offset, limit) => check(base + from, base + from + length, envName, repoName, offset, limit),
        ),
        // Deep pages (offset >= deepPageOffset) on most runs.
        {
          numRuns: 300,
          examples: [
            [0, 80 * day, undefined, undefined, deepPageOffset, 50],
            [0, 80 * day, undefined, undefined, 3_999, 10],
            [-day, 82 * day, 'prod', undefined, 3_000, 60],
          ],
        },
      );
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it('are counted per hour for the deployments a database has when migration 0011 applies', async () => {
    const opened = await openTestStore();
    let store: Store = opened.store;
    try {
      const hour = 3_600;
      const base = 1_760_000_000 - (1_760_000_000 % 86_400);
      const orgs = [Number((await store.ensureOrganization('acme', 0)).id), Number((await store.ensureOrganization('globex', 0)).id)];
      const envs = await Promise.all(orgs.map((org) => store.upsertEnvironment(org, { name: 'prod', type: 'server' }, base)));
      const all = Array.from({ length: 300 }, (_, i) => ({
        organizationId: orgs[i % 2]!,
        environmentId: envs[i % 2]!.id,
        envName: 'prod',
        snapshotIndex: i + 1,
        fingerprint: `f${i}`,
        artifactName: `a${i}`,
        deployedAt: base + ((i * 7_919) % (3 * 86_400)) + (i % 5 === 0 ? 0.5 : 0),
        trailId: null,
        repoName: null,
      }));
      await store.insertDeployments(all);
      await store.close();
      // Back to the database as it was before the migration: no per-hour counts (and no later migration).
      store = await reopenTestStore(opened, migrationsUndone('0011_deployment_hour_counts'));
      // Windows over hours of the first, middle and last day, edges inside hours and on them.
      for (const [from, to] of [
        [0.5, 70.25],
        [1, 3],
        [5.75, 23],
        [23.5, 48.5],
        [0, 72],
        [30, 31.9],
      ]) {
        for (const org of orgs) {
          const start = base + from! * hour;
          const end = base + to! * hour;
          const expected = all.filter((d) => d.organizationId === org && d.deployedAt >= start && d.deployedAt <= end).length;
          const { total } = await store.listDeployments(org, { start, end, offset: 0, limit: 1 });
          expect(total, JSON.stringify({ org, from, to })).to.equal(expected);
        }
      }
    } finally {
      await store.close().catch(() => {});
      await opened.cleanup();
    }
  });
});
