// @database
/**
 * The server in production runs the built JavaScript with plain node: `bin/trailproof.js serve`
 * starts the bundle of dist/cli/main.js (dist/bundle/main.js, packages/server/build-cli.mjs), and its
 * worker threads (the SQLite writer, readers and checkpointer) start from the bundle's entries too. No TypeScript loader is in the process: none on its command line or in its
 * NODE_OPTIONS, and Node's own module log (NODE_DEBUG=esm) names no .ts file and nothing of tsx
 * among every module the process and its threads loaded.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createInterface } from 'node:readline';
import { expect } from 'chai';
import { testBackend } from '@trailproof/server/testing';
import { beginTrailAndAttest, buildPackages, builtEnv, listeningUrl, repositoryRoot } from './support/built.ts';
import { call, runProcess } from './support/processes.ts';

const bin = join(repositoryRoot, 'packages/server/bin/trailproof.js');

describe('the built server (node packages/server/bin/trailproof.js)', function () {
  this.timeout(180_000);
  let dir = '';

  before(async function () {
    if (testBackend !== 'sqlite') return this.skip(); // the loader does not depend on the database
    await buildPackages();
    dir = mkdtempSync(join(tmpdir(), 'trailproof-built-'));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves a begun trail and an attestation with no TypeScript loader in the process', async () => {
    const db = join(dir, 'built.db');
    const created = await runProcess(process.execPath, [bin, 'token', 'create', '--org', 'acme', '--db', db], { env: builtEnv() });
    expect(created.status, created.stderr).to.equal(0);
    const token = created.stdout.trim();

    const child = spawn(process.execPath, [bin, 'serve', '--db', db, '--port', '0'], {
      env: builtEnv({ NODE_DEBUG: 'esm' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Every module URL Node's ES module loader stored, main thread and workers alike.
    const dist = (name: string) => `file://${join(repositoryRoot, 'packages/server/dist', name)}`;
    const loaded = new Set<string>();
    const stored = new EventEmitter();
    createInterface({ input: child.stderr }).on('line', (line) => {
      const url = /Storing (file:\/\/\S+)/.exec(line)?.[1];
      if (url) loaded.add(url);
      if (url) stored.emit('module', url);
    });
    try {
      const url = await listeningUrl(child, exited);
      await beginTrailAndAttest(url, token);
      // Verification runs on a thread of its own, whose entry must be found among the built files too
      // (its 200 says so: the built tree holds no TypeScript; the loader's log of that thread may come later).
      const verified = await fetch(`${url}/api/v2/verify/acme`, { headers: { authorization: `Bearer ${token}` } });
      expect(verified.status, await verified.clone().text()).to.equal(200);

      // Lists run on reader threads started from the bundle's entry beside main.js; a list is
      // answered on the event loop until one has opened the database, and the same either way.
      const readerEntry = dist('bundle/reader-thread-worker.js');
      const readerStarted = new Promise<void>((resolve) => {
        if (loaded.has(readerEntry)) resolve();
        stored.on('module', (url: string) => url === readerEntry && resolve());
      });
      expect(await call(url, token, 'PUT', '/api/v2/environments/acme', { json: { name: 'production', type: 'K8S' } })).to.deep.include({ status: 201 });
      await readerStarted;
      for (let lists = 0; lists < 200; lists++) {
        const listed = await call(url, token, 'GET', '/api/v2/environments/acme');
        expect(listed.status).to.equal(200);
        expect(listed.body.environments.map((environment: { name: string }) => environment.name)).to.deep.equal(['production']);
      }

      // The WAL's checkpointer starts from the bundle's entry once the WAL reaches 4 MiB: five
      // attestations with 1 MiB attachments each take it past that.
      const checkpointEntry = dist('bundle/checkpoint-worker.js');
      const checkpointerStarted = new Promise<void>((resolve) => {
        if (loaded.has(checkpointEntry)) resolve();
        stored.on('module', (url: string) => url === checkpointEntry && resolve());
      });
      for (let i = 0; i < 5; i++) {
        const form = new FormData();
        form.append('data_json', JSON.stringify({ attestation_name: `big-${i}`, is_compliant: true }));
        form.append('attachment_file', new Blob([Buffer.alloc(1024 * 1024, i)]), `big-${i}.bin`);
        expect(await call(url, token, 'POST', '/api/v2/attestations/acme/app/trail/t1/generic', { form })).to.deep.include({ status: 201 });
      }
      await checkpointerStarted;

      const commandLine = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      expect(commandLine).to.deep.equal([process.execPath, bin, 'serve', '--db', db, '--port', '0']);
      const environment = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0');
      expect(environment.filter((entry) => entry.startsWith('NODE_OPTIONS='))).to.deep.equal([]);

      const modules = [...loaded];
      // The log is not empty: the bundled CLI and the workers' entries beside it are in it, and
      // nothing of the unbundled build (the schema's built files are in the bundle's chunks).
      expect(modules).to.include.members([
        dist('bundle/main.js'),
        dist('bundle/writer-thread-worker.js'),
        dist('bundle/reader-thread-worker.js'),
        dist('bundle/checkpoint-worker.js'),
      ]);
      expect(
        modules.filter((m) => m.includes('/packages/schema/dist/') || (m.includes('/packages/server/dist/') && !m.includes('/dist/bundle/'))),
      ).to.deep.equal([]);
      expect(modules.filter((m) => /\.[cm]?ts$/.test(m) || /\/tsx[@/]/.test(m))).to.deep.equal([]);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
