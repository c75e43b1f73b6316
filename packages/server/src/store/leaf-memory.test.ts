// @database
/** Leaves of append-only records remembered per database: bounded, never filled by a transaction, so a rollback leaves nothing behind. */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import type { Db } from './database.ts';
import { leafMemory } from './leaf-memory.ts';

const fakeDb = (adapter: object, isTransaction = false) => ({ getExecutor: () => ({ adapter }), isTransaction }) as unknown as Db;

describe('leaf memory', () => {
  it('keeps at most its bound per database, dropping the least recently used, and nothing a transaction found', () => {
    const memory = leafMemory(2);
    const one = {};
    const db = fakeDb(one);
    memory.remember(db, 'a', 1);
    memory.remember(db, 'b', 2);
    expect(memory.get(db, 'a')).to.equal(1);
    memory.remember(db, 'c', 3);
    expect([memory.get(db, 'a'), memory.get(db, 'b'), memory.get(db, 'c')]).to.deep.equal([1, undefined, 3]);
    memory.remember(fakeDb(one, true), 'd', 4);
    expect(memory.get(db, 'd')).to.equal(undefined);
    expect(memory.get(fakeDb({}), 'a')).to.equal(undefined);
  });

  describe('logIndexesOf', () => {
    let server: TestServer;
    beforeEach(async () => (server = await startTestServer()));
    afterEach(() => server.close());

    const put = (organizationId: number, name: string) => ({
      organizationId,
      name,
      description: null,
      type: 'env',
      comment: '',
      yaml: '_schema: https://kosli.com/schemas/policy/environment/v1\n',
      createdBy: null,
      at: 1_764_000_000,
    });

    it('answers a leaf a rolled-back transaction read as no leaf, and a committed one as stored', async () => {
      const { id: organizationId } = (await server.store.findOrganization('acme'))!;
      let rolledBack = 0;
      const undone = new Error('roll back');
      const failed = await server.store
        .transaction(async (tx) => {
          await tx.putPolicyVersion(put(organizationId, 'gone'));
          const [version] = await tx.latestPolicyVersions(organizationId, ['gone']);
          rolledBack = version!.id;
          expect((await tx.logIndexesOf(organizationId, 'policy_versions', [rolledBack])).size).to.equal(1);
          throw undone;
        })
        .catch((error: unknown) => error);
      expect(failed).to.equal(undone);
      expect([...(await server.store.logIndexesOf(organizationId, 'policy_versions', [rolledBack]))]).to.deep.equal([]);
      await server.store.transaction((tx) => tx.putPolicyVersion(put(organizationId, 'kept')));
      const [kept] = await server.store.latestPolicyVersions(organizationId, ['kept']);
      const first = await server.store.logIndexesOf(organizationId, 'policy_versions', [kept!.id]);
      expect(first.size).to.equal(1);
      expect([...(await server.store.logIndexesOf(organizationId, 'policy_versions', [kept!.id, kept!.id]))]).to.deep.equal([...first]);
    });
  });
});
