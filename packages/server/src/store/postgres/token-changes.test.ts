// @database
import { expect } from 'chai';
import pg from 'pg';
import { createToken, type Store } from '@trailproof/server';
import { openTestStore, testBackend, waitUntil } from '@trailproof/server/testing';
import { rememberTokensUntilChange } from '../remembered.ts';
import { listenForTokenChanges, type TokenChanges } from './token-changes.ts';

/** Asserts that `check` holds within `ms`. */
const eventually = async (check: () => boolean | Promise<boolean>, ms: number, what: string) => expect(await waitUntil(check, ms), what).to.equal(true);

/** Whether `version()` moved from one call to the next: it does at every call while not listening. */
const moving = (changes: TokenChanges) => {
  const first = changes.version();
  return changes.version() !== first;
};

/** Listening: `version()` stays put between calls. */
const listening = (changes: TokenChanges) => eventually(() => !moving(changes), 5_000, 'listening');

describe('token changes on PostgreSQL (remembered tokens)', function () {
  this.timeout(30_000);
  let store: Store;
  let schema: string;
  let url: string;
  let cleanup: () => void | Promise<void>;
  let other: pg.Client;
  const applicationName = `trailproof test listener ${process.pid}`;

  before(async function () {
    if (testBackend !== 'postgres') return this.skip();
    const opened = await openTestStore();
    ({ store, cleanup } = opened);
    schema = opened.schema!;
    url = opened.location;
    // Another client, as another process (`trailproof token revoke`) would be.
    other = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await other.connect();
  });
  after(async () => {
    await other?.end();
    await store?.close();
    await cleanup?.();
  });

  it('moves on every change to the tokens table by any client, and not otherwise', async () => {
    const changes = listenForTokenChanges(url, { applicationName });
    try {
      await listening(changes);
      const before = changes.version();
      await other.query('select count(*) from tokens');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(changes.version(), 'a read is no change').to.equal(before);
      const { id } = await createToken(store, { org: 'acme' });
      await eventually(() => changes.version() !== before, 3_000, 'the insert noticed');
      const after = changes.version();
      await other.query('update tokens set revoked_at = 1 where id = $1', [id]);
      await eventually(() => changes.version() !== after, 3_000, 'the revocation noticed');
    } finally {
      await changes.close();
    }
  });

  it('remembers nothing while its connection is lost, and listens again after it', async () => {
    const changes = listenForTokenChanges(url, { applicationName, retryMs: 100 });
    try {
      await listening(changes);
      const { rows } = await other.query('select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = $1', [applicationName]);
      expect(rows).to.have.length(1);
      await eventually(() => moving(changes), 3_000, 'the loss noticed');
      await listening(changes);
      const before = changes.version();
      await other.query('update tokens set description = $1', ['changed after reconnecting']);
      await eventually(() => changes.version() !== before, 3_000, 'a change after reconnecting noticed');
    } finally {
      await changes.close();
    }
  });

  it('with rememberTokensUntilChange: one query while nothing changes, a fresh one after a revocation by another client', async () => {
    // Created before listening, so that its own notification cannot arrive after `listening`.
    const { id } = await createToken(store, { org: 'acme' });
    const changes = listenForTokenChanges(url, { applicationName });
    try {
      let queries = 0;
      const find = rememberTokensUntilChange(async (tokenId) => {
        queries++;
        const { rows } = await other.query('select id, revoked_at from tokens where id = $1', [tokenId]);
        return (
          rows[0] && { id: rows[0].id, organization: 'acme', secretSha256: '', readOnly: false, description: null, createdAt: 0, revokedAt: rows[0].revoked_at }
        );
      }, changes.version);
      await listening(changes);
      await find(id);
      for (let i = 0; i < 5; i++) expect((await find(id))?.revokedAt).to.equal(null);
      expect(queries, 'remembered after the first').to.equal(1);
      await other.query('update tokens set revoked_at = 2 where id = $1', [id]);
      await eventually(async () => (await find(id))?.revokedAt === 2, 3_000, 'the revocation seen');
    } finally {
      await changes.close();
    }
  });
});
