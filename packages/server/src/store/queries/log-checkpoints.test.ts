// @database
/**
 * When the checkpointer signs a tree (issue 34), on SQLite or PostgreSQL: a tree that grew gets a
 * checkpoint unless its latest one is younger than the interval (then it is deferred, and signed
 * at the next run past it); a tree that did not grow gets none. The latest checkpoint is the one
 * of the largest size, whatever the order of their times, and a clock set back does not stop them.
 */
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { openTestStore, testBackend } from '@trailproof/server/testing';
import { openPostgres } from '../postgres/open.ts';
import type { Database } from '../database.ts';
import { openSqliteWriter } from '../sqlite/open.ts';
import { loadLogSigning, type LogSigning } from '../log-signing.ts';
import { ensureOrganization } from './organizations.ts';
import { appendLeaves, logSize } from './log.ts';
import { listCheckpoints, makeCheckpoints } from './log-checkpoints.ts';

describe('checkpoints of the log, made at most once per interval', () => {
  let db: Kysely<Database>;
  let cleanup: () => void | Promise<void>;
  let signing: LogSigning;
  let acme: number;

  beforeEach(async () => {
    const opened = await openTestStore();
    await opened.store.close();
    cleanup = opened.cleanup;
    db = testBackend === 'postgres' ? openPostgres(opened.location, { schema: opened.schema }).db : openSqliteWriter(opened.file).db;
    signing = await loadLogSigning(db);
    acme = (await ensureOrganization(db, 'acme', 0)).id;
  });
  afterEach(async () => {
    await db.destroy();
    await cleanup();
  });

  const grow = (count: number) =>
    db.transaction().execute(async (trx) => {
      const size = await logSize(trx, acme);
      await appendLeaves(
        trx,
        acme,
        size,
        Array.from({ length: count }, (_, i) => `{"seq":${size + i + 1}}`),
      );
    });
  const kept = async () => (await listCheckpoints(db, acme, 0, 100)).map((c) => [c.treeSize, c.createdAt]);

  it('defers a grown tree while its latest checkpoint is younger than the interval', async () => {
    await grow(2);
    expect(await makeCheckpoints(db, signing, { intervalMs: 1000, now: 100 })).to.deep.equal({ deferred: false });
    await grow(1);
    expect(await makeCheckpoints(db, signing, { intervalMs: 1000, now: 100.5 })).to.deep.equal({ deferred: true });
    expect(await kept()).to.deep.equal([[2, 100]]);
    expect(await makeCheckpoints(db, signing, { intervalMs: 1000, now: 101 })).to.deep.equal({ deferred: false });
    expect(await kept()).to.deep.equal([
      [3, 101],
      [2, 100],
    ]);
  });

  it('makes none for a tree that did not grow, however old its latest checkpoint', async () => {
    await grow(4);
    await makeCheckpoints(db, signing, { intervalMs: 1000, now: 100 });
    expect(await makeCheckpoints(db, signing, { intervalMs: 1000, now: 5000 })).to.deep.equal({ deferred: false });
    expect(await kept()).to.deep.equal([[4, 100]]);
  });

  it('goes on after the clock was set back: the latest checkpoint is the largest, one dated in the future holds none back', async () => {
    await grow(1);
    await makeCheckpoints(db, signing, { intervalMs: 1000, now: 500 });
    await grow(1);
    expect(await makeCheckpoints(db, signing, { intervalMs: 1000, now: 200 })).to.deep.equal({ deferred: false });
    await grow(1);
    // The checkpoint of size 2 is 0.5 s old at 200.5; the one of size 1 is dated in the future.
    expect(await makeCheckpoints(db, signing, { intervalMs: 1000, now: 200.5 })).to.deep.equal({ deferred: true });
    expect(await makeCheckpoints(db, signing, { intervalMs: 1000, now: 201 })).to.deep.equal({ deferred: false });
    expect((await kept()).map(([size]) => size)).to.deep.equal([3, 2, 1]);
  });
});
