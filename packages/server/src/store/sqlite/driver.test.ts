import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import BetterSqlite3, { sqliteDriver } from './driver.ts';
import { openSqliteReader } from './open.ts';

const nodeMajor = Number(process.versions.node.split('.')[0]);

describe('the better-sqlite3 line for this Node', () => {
  it(`is 13 (Node-API) on Node 22 and later, 12 on Node 20 (here: Node ${process.versions.node})`, () => {
    expect(Number(sqliteDriver.version.split('.')[0])).to.equal(nodeMajor >= 22 ? 13 : 12);
  });

  it('is the one a store opens its file with', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trailproof-driver-'));
    try {
      new BetterSqlite3(join(dir, 'a.db')).close();
      const { db, raw } = openSqliteReader(join(dir, 'a.db'));
      expect(raw).to.be.instanceOf(BetterSqlite3);
      await db.destroy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("survives the collection of a worker thread's statements (better-sqlite3 12 aborts on Node 24)", function () {
    this.timeout(120_000);
    // A process of its own: the failure is an abort, which would take mocha down with it.
    // Ten workers in turn, each collecting 5,000 statements with its database open: on Node 24
    // better-sqlite3 12 aborted in 10 runs of 10; 13 takes about 2.5 s here.
    const script = `
      const { Worker } = require('node:worker_threads');
      let workers = 0;
      const next = () => new Worker(\`
        const Database = require(require('node:worker_threads').workerData);
        const db = new Database(':memory:');
        for (let i = 0; i < 5000; i++) db.prepare('select ' + i).get();
        globalThis.gc();
      \`, { eval: true, workerData: process.argv[1] }).on('exit', () => {
        globalThis.gc();
        if (++workers < 10) next();
      });
      next();`;
    const run = spawnSync(process.execPath, ['--expose-gc', '-e', script, sqliteDriver.module], { encoding: 'utf8' });
    expect({ status: run.status, signal: run.signal, stderr: run.stderr }).to.deep.equal({ status: 0, signal: null, stderr: '' });
  });
});
