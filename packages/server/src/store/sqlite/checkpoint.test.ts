/**
 * The WAL checkpointer's thread starts once the WAL has grown to `checkpointerStartBytes`, not when
 * the store opens: a store that barely writes starts no thread (counted in /proc/self/task: a worker
 * is an operating-system thread from its construction on), and one that writes more gets its WAL
 * copied back into the file.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { checkpointerStartBytes, startCheckpointer } from './checkpoint.ts';
import BetterSqlite3 from './driver.ts';

const threads = () => readdirSync('/proc/self/task').length;

describe('the WAL checkpointer', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'trailproof-checkpointer-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('starts its thread once the WAL reaches its size, then copies the WAL back into the file', async function () {
    if (process.platform !== 'linux') this.skip();
    const file = join(dir, 'evidence.db');
    const raw = new BetterSqlite3(file);
    raw.pragma('journal_mode = WAL');
    raw.exec('create table t (x blob)');
    const insert = raw.prepare('insert into t values (?)');
    const before = threads();
    const checkpointer = startCheckpointer(raw, file)!;
    try {
      insert.run(Buffer.alloc(64 * 1024));
      checkpointer.committed();
      expect(threads(), 'no thread for a small WAL').to.equal(before);

      const inFile = statSync(file).size;
      for (let written = 0; written <= checkpointerStartBytes; written += 256 * 1024) insert.run(Buffer.alloc(256 * 1024, 1));
      checkpointer.committed();
      expect(threads(), 'a thread once the WAL is past the size').to.be.above(before);
      // The worker's PASSIVE checkpoint copies the committed pages: awaited, however slow the machine.
      while (statSync(file).size <= inFile + checkpointerStartBytes) await sleep(10);
    } finally {
      await checkpointer.close();
      raw.close();
    }
  });

  it('closes at once when its thread never started', async () => {
    const file = join(dir, 'evidence.db');
    const raw = new BetterSqlite3(file);
    raw.pragma('journal_mode = WAL');
    const checkpointer = startCheckpointer(raw, file)!;
    await checkpointer.close();
    raw.close();
  });
});
