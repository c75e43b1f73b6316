import { expect } from 'chai';
import fc from 'fast-check';
import type { DeploymentRecord } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';
import { deepPageOffset } from './deployments.ts';

describe('deployment counts (per-day rollups)', function () {
  this.timeout(60_000);
  const at = { org: 'acme', apiBase: '/api/v2' };

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
      // 600 deployments over 40 days, some exactly on day boundaries, inserted in batches as reports do.
      const all = Array.from({ length: 600 }, (_, i) => {
        const env = envs[i % 3]!;
        return {
          organizationId: Number(org.id), environmentId: ids.get(env)!, envName: env, snapshotIndex: i + 1, fingerprint: `f${i}`, artifactName: `a${i}`,
          deployedAt: base + (i % 7 === 0 ? Math.floor(i / 15) * day : (i * 5_743) % (40 * day)), trailId: null, repoName: repos[i % 3 === 0 ? 0 : i % 5 === 0 ? 2 : 1]!,
        };
      });
      for (let i = 0; i < all.length; i += 50) await store.insertDeployments(all.slice(i, i + 50));

      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: -2 * day, max: 42 * day }), fc.integer({ min: 0, max: 45 * day }),
          fc.constantFrom<string | undefined>(undefined, ...envs), fc.constantFrom<string | undefined>(undefined, 'acme/a', 'acme/b'),
          async (from, length, envName, repoName) => {
            const start = base + from;
            const end = start + length;
            const expected = all.filter((d) => d.deployedAt >= start && d.deployedAt <= end && (envName === undefined || d.envName === envName) && (repoName === undefined || d.repoName === repoName)).length;
            const { total } = await store.listDeployments(Number(org.id), { start, end, envName, repoName, offset: 0, limit: 1 }, at);
            expect(total, JSON.stringify({ from, length, envName, repoName })).to.equal(expected);
          },
        ),
        { numRuns: 300 },
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
          organizationId: Number(org.id), environmentId: ids.get(env)!, envName: env, snapshotIndex: i + 1, fingerprint: `f${i}`, artifactName: `a${i}`,
          deployedAt: base + dayOf * day + (i % 11 === 0 ? 0 : (i * 3_181) % day) - (i % 3 === 0 ? i % 2 : 0), trailId: null, repoName: i % 4 ? 'acme/a' : null,
        };
      });
      for (let i = 0; i < all.length; i += 500) await store.insertDeployments(all.slice(i, i + 500));
      // Newest first, ties by insertion order (the id), newest id first.
      const newestFirst = all.map((d, id) => ({ ...d, id })).sort((a, b) => b.deployedAt - a.deployedAt || b.id - a.id);

      const check = async (start: number, end: number, envName: string | undefined, repoName: string | undefined, offset: number, limit: number) => {
        const expected = newestFirst.filter((d) => d.deployedAt >= start && d.deployedAt <= end && (envName === undefined || d.envName === envName) && (repoName === undefined || d.repoName === repoName));
        const { itemsJson, total } = await store.listDeployments(Number(org.id), { start, end, envName, repoName, offset, limit }, at);
        const items = JSON.parse(itemsJson) as DeploymentRecord[];
        const context = JSON.stringify({ start, end, envName, repoName, offset, limit });
        expect(total, context).to.equal(expected.length);
        expect(items.map((d) => d.fingerprint), context).to.deep.equal(expected.slice(offset, offset + limit).map((d) => d.fingerprint));
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
          fc.integer({ min: -day, max: 20 * day }), fc.integer({ min: 0, max: 82 * day }), fc.constantFrom<string | undefined>(undefined, ...envs),
          fc.constantFrom<string | undefined>(undefined, 'acme/a'), fc.integer({ min: 0, max: 4_100 }), fc.integer({ min: 1, max: 60 }),
          (from, length, envName, repoName, offset, limit) => check(base + from, base + from + length, envName, repoName, offset, limit),
        ),
        // Deep pages (offset >= deepPageOffset) on most runs.
        { numRuns: 300, examples: [[0, 80 * day, undefined, undefined, deepPageOffset, 50], [0, 80 * day, undefined, undefined, 3_999, 10], [-day, 82 * day, 'prod', undefined, 3_000, 60]] },
      );
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
