import { expect } from 'chai';
import fc from 'fast-check';
import { openTestStore } from '@trailproof/server/testing';

describe('deployment counts (per-day rollups)', function () {
  this.timeout(60_000);

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
            const { total } = await store.listDeployments(Number(org.id), { start, end, envName, repoName, offset: 0, limit: 1 });
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
});
