// @database
/**
 * The published route: `pnpm pack` makes the tarballs of @trailproof/schema, @trailproof/junit and
 * @trailproof/server, npm installs them into an empty folder outside the repository (from the
 * registry for every other dependency), and `npx trailproof` there creates a token and serves a
 * begun trail and an attestation. better-sqlite3 is the workspace's copy, already compiled by
 * `pnpm install` (an npm override, installed without install scripts, which would compile it in
 * place again): the compile is what `pnpm install` proves already (docs/decisions.md). Skipped
 * with TRAILPROOF_TEST_PACKED=skip (CI's second Node version) and in the PostgreSQL pass: the
 * package's files do not depend on the database.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { testBackend } from '@trailproof/server/testing';
import { beginTrailAndAttest, builtEnv, listeningUrl, repositoryRoot } from './support/built.ts';
import { runProcess } from './support/processes.ts';

describe('the packed packages, installed with npm outside the repository', function () {
  this.timeout(15 * 60_000);
  let dir = '';

  before(function () {
    if (testBackend !== 'sqlite' || process.env.TRAILPROOF_TEST_PACKED === 'skip') return this.skip();
    dir = mkdtempSync(join(tmpdir(), 'trailproof-packed-'));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('npx trailproof creates a token and serves a begun trail and an attestation', async () => {
    expect(dir.startsWith(repositoryRoot)).to.equal(false);
    const packs = join(dir, 'packs');
    for (const name of ['schema', 'junit', 'server']) {
      const packed = await runProcess('pnpm', ['pack', '--pack-destination', packs], { cwd: join(repositoryRoot, 'packages', name), env: builtEnv() });
      expect(packed.status, packed.stdout + packed.stderr).to.equal(0);
    }
    const tarballs = readdirSync(packs).map((file) => join(packs, file));
    const { version } = JSON.parse(readFileSync(join(repositoryRoot, 'packages/server/package.json'), 'utf8')) as { version: string };
    expect(tarballs.map((file) => file.slice(packs.length + 1)).sort()).to.deep.equal([
      `trailproof-junit-${version}.tgz`,
      `trailproof-schema-${version}.tgz`,
      `trailproof-server-${version}.tgz`,
    ]);

    const app = join(dir, 'app');
    mkdirSync(app);
    const compiled = dirname(createRequire(join(repositoryRoot, 'packages/server/package.json')).resolve('better-sqlite3/package.json'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, overrides: { 'better-sqlite3': `file:${compiled}` } }));
    const installed = await runProcess('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs], { cwd: app, env: builtEnv() });
    expect(installed.status, installed.stdout + installed.stderr).to.equal(0);
    // A development tool stays out of a production install.
    expect(existsSync(join(app, 'node_modules/tsx'))).to.equal(false);
    // Tests and their fixtures stay out of the published build.
    const published = readdirSync(join(app, 'node_modules/@trailproof/server/dist'), { recursive: true }).map(String);
    expect(published.filter((file) => /\.test\.|-fixture\./.test(file))).to.deep.equal([]);
    expect(published).to.include('index.js');

    const created = await runProcess('npx', ['trailproof', 'token', 'create', '--org', 'acme', '--db', 'evidence.db'], { cwd: app, env: builtEnv() });
    expect(created.status, created.stderr).to.equal(0);
    const token = created.stdout.trim();

    // Its own process group, so that npx and the server it starts stop together.
    const server = spawn('npx', ['trailproof', 'serve', '--db', 'evidence.db', '--port', '0'], {
      cwd: app,
      env: builtEnv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      await beginTrailAndAttest(await listeningUrl(server, exited), token);
    } finally {
      process.kill(-server.pid!, 'SIGTERM');
      await exited;
    }
  });
});
