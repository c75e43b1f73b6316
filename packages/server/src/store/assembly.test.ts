// @database
/**
 * What each engine runs its own way, by name: a new override (or one dropped) changes this list,
 * so it shows in review beside the engine's table (sqlite/store.ts, postgres/store.ts).
 */
import { expect } from 'chai';
import type { Store } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';
import { StoreError } from './errors.ts';
import { assembleStore, overriddenBy } from './registry.ts';

const overridden: Record<Store['dialect'], string[]> = {
  sqlite: [
    'appendArtifact',
    'appendAttestation',
    'artifactReadFacts',
    'assertReads',
    'attestationFactsOfTrails',
    'backup',
    'checkDatabase',
    'close',
    'committedVersion',
    'complianceFactsOfTrails',
    'consistencyProofOf',
    'deploymentsPerDay',
    'findConsoleSession',
    'findIdentitySession',
    'findToken',
    'flowArtifactsWithFacts',
    'inclusionProofOf',
    'junitResultsOf',
    'listApprovals',
    'listAttestations',
    'listDeployments',
    'listEnvironments',
    'logLeaves',
    'logSigning',
    'logSize',
    'makeCheckpoints',
    'onWriteBatch',
    'searchWithFacts',
    'verifyChain',
  ],
  postgres: [
    'appendArtifact',
    'appendAttestation',
    'checkDatabase',
    'close',
    'findToken',
    'insertToken',
    'logSigning',
    'makeCheckpoints',
    'onWriteBatch',
    'poolUse',
    'revokeToken',
  ],
};

describe('store assembly', function () {
  this.timeout(30_000);

  it('names what the engine overrides, and the assembled store answers', async () => {
    const opened = await openTestStore();
    try {
      const { store } = opened;
      expect(overriddenBy(store)).to.deep.equal(overridden[store.dialect]);
      expect(await store.logSize(999_999)).to.equal(0);
    } finally {
      // cleanup() removes the data; on PostgreSQL the store's pool and listener stay open until closed.
      await opened.store.close();
      await opened.cleanup();
    }
  });

  it("wraps a driver's error as a StoreError, in the base's methods and in the overrides alike", async () => {
    const busy = () => Promise.reject(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));
    const base = { dialect: 'sqlite', findFlow: busy, close: async () => {}, checkDatabase: async () => {} } as unknown as Store;
    const store = assembleStore(base, { findToken: busy });
    for (const call of [() => store.findFlow(1, 'f'), () => store.findToken('t')]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(StoreError).and.to.include({ kind: 'busy', code: 'SQLITE_BUSY' });
    }
    expect(overriddenBy(store)).to.deep.equal(['findToken']);
  });
});
