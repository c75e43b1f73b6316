// @database
import { expect } from 'chai';
import { createToken, type Store } from '@trailproof/server';
import { storeTokens } from '@trailproof/server/plugin-kit';
import { migrationsUndone, openTestStore, reopenTestStore } from '@trailproof/server/testing';

describe('tokens', () => {
  it('keep their expiry, and tokens made before migration 0013 keep working and never expire', async () => {
    const opened = await openTestStore();
    let store: Store = opened.store;
    try {
      const before = await createToken(store, { org: 'acme', description: 'made before 0013' });
      await store.close();
      store = await reopenTestStore(opened, migrationsUndone('0013_token_expiry'));
      expect((await store.findToken(before.id))!.expiresAt).to.equal(null);
      expect(await storeTokens(store).authenticate(`Bearer ${before.token}`)).to.deep.equal({ tokenId: before.id, org: 'acme', readOnly: false });

      const expiresAt = Date.now() / 1000 + 86_400;
      const expiring = await createToken(store, { org: 'acme', readOnly: true, expiresAt });
      const listed = await store.listTokens('acme');
      expect(listed.map((t) => [t.id, t.description, t.expiresAt])).to.deep.equal([
        [before.id, 'made before 0013', null],
        [expiring.id, null, listed[1]!.expiresAt],
      ]);
      expect(listed[1]!.expiresAt).to.be.closeTo(expiresAt, 0.001);
      expect(await storeTokens(store).authenticate(`Bearer ${expiring.token}`)).to.deep.equal({ tokenId: expiring.id, org: 'acme', readOnly: true });
    } finally {
      await store.close();
      await opened.cleanup();
    }
  });
});
