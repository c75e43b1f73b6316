// @database
/** The store's failures come out as `StoreError`s of a kind, whatever the driver said. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteStore } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';
import { StoreError, storeErrorKind } from './errors.ts';

describe('store errors', function () {
  this.timeout(30_000);

  it("classifies the drivers' codes and connection errors by kind, and nothing else", () => {
    const kinds: Array<[Record<string, unknown>, string | undefined]> = [
      [{ code: 'SQLITE_FULL' }, 'full'],
      [{ code: '53100' }, 'full'],
      [{ code: 'SQLITE_BUSY' }, 'busy'],
      [{ code: '57014' }, 'busy'],
      [{ code: '53300' }, 'busy'],
      [{ code: '25006' }, 'read-only'],
      [{ code: 'ECONNREFUSED' }, 'unavailable'],
      [{ code: '08006' }, 'unavailable'],
      [{ code: '57P01' }, 'unavailable'],
      [{ message: 'Connection terminated unexpectedly' }, 'unavailable'],
      [{ code: 'SQLITE_READONLY_DBMOVED' }, 'moved'],
      [{ code: 'SQLITE_IOERR_FSTAT' }, 'storage'],
      [{ code: 'SQLITE_CANTOPEN' }, 'storage'],
      [{ code: '22021' }, 'unstorable-text'],
      [{ code: '23505' }, 'conflict'],
      [{ code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'conflict'],
      [{ code: 'SQLITE_READONLY' }, undefined],
      [{ code: 'SQLITE_CORRUPT' }, undefined],
      [{ message: 'a bug' }, undefined],
    ];
    for (const [error, kind] of kinds)
      expect(storeErrorKind(Object.assign(new Error(String(error.message ?? 'x')), error)), JSON.stringify(error)).to.equal(kind);
  });

  it('throws a conflict as a StoreError from a query, in a transaction too, and leaves other errors as they are', async () => {
    const { store, cleanup } = await openTestStore();
    try {
      const organization = await store.ensureOrganization('acme', 1);
      const token = { id: 'tp_same', organizationId: organization.id, secretSha256: 'x'.repeat(64), readOnly: false, description: null, at: 1 };
      await store.insertToken(token);
      const outside = await store.insertToken(token).then(
        () => null,
        (error: unknown) => error,
      );
      expect(outside).to.be.instanceOf(StoreError).and.to.include({ kind: 'conflict' });
      const inside = await store
        .transaction((tx) => tx.insertToken(token))
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(inside).to.be.instanceOf(StoreError).and.to.include({ kind: 'conflict' });
      const mine = new RangeError('mine');
      expect(
        await store
          .transaction(async () => {
            throw mine;
          })
          .catch((error: unknown) => error),
      ).to.equal(mine);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it('throws a full SQLite file as kind full', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trailproof-store-errors-'));
    // Room for the schema (about 1 MiB in 16KB pages) and not for the blob.
    const store = await openSqliteStore(join(dir, 'full.db'), { maxSizeBytes: 2 * 1024 * 1024 });
    try {
      const failed = await store.putBlob(new Uint8Array(3 * 1024 * 1024).fill(7), 1).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failed).to.be.instanceOf(StoreError).and.to.include({ kind: 'full', code: 'SQLITE_FULL' });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
