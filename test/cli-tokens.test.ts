/** `trailproof token list` never shows secrets; `token revoke` stops a token at once, even for a running server. */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { openTestStore } from '@trailproof/server/testing';
import { call, runCli, startServerProcess, type ServerProcess } from './support/processes.ts';

const cli = fileURLToPath(new URL('../packages/server/src/cli.ts', import.meta.url));

describe('trailproof token list / revoke', function () {
  this.timeout(60_000);
  let location = '';
  let cleanup: () => void | Promise<void> = () => {};
  let server: ServerProcess | undefined;

  before(async () => {
    const test = await openTestStore();
    await test.store.close();
    // PostgreSQL test stores live in a schema of their own, which a CLI cannot select: use SQLite files here, and a fresh database on PostgreSQL.
    location = test.location;
    cleanup = test.cleanup;
    if (test.schema) {
      const { createDatabase } = await import('./support/processes.ts');
      const db = await createDatabase(process.env.TRAILPROOF_TEST_DATABASE!, 'tokens');
      location = db.url;
      const previous = cleanup;
      cleanup = async () => {
        await previous();
        await db.drop();
      };
    }
  });
  after(async () => {
    await server?.stop();
    await cleanup();
  });

  it('lists tokens without secrets and revokes one so that the server refuses it', async () => {
    const writer = runCli(['token', 'create', '--org', 'acme', '--description', 'ci pipeline', '--database', location]).trim();
    const reader = runCli(['token', 'create', '--org', 'acme', '--read-only', '--database', location]).trim();
    runCli(['token', 'create', '--org', 'globex', '--database', location]);
    const [, writerId, writerSecret] = /^tp_([A-Za-z0-9]{16})_(.+)$/.exec(writer)!;

    const listed = JSON.parse(runCli(['token', 'list', '--org', 'acme', '--json', '--database', location])) as Array<Record<string, unknown>>;
    expect(listed.map((t) => t.id)).to.have.members([writerId, /^tp_([A-Za-z0-9]{16})_/.exec(reader)![1]]);
    expect(listed.find((t) => t.id === writerId)).to.include({ org: 'acme', access: 'read-write', description: 'ci pipeline', revoked_at: null });
    const table = runCli(['token', 'list', '--database', location]);
    expect(table).to.contain('globex').and.to.contain('read-only');
    expect(table).not.to.contain(writerSecret!);
    if (!location.startsWith('postgres')) expect(readFileSync(location).includes(Buffer.from(writerSecret!))).to.equal(false);

    server = await startServerProcess(['--database', location]);
    expect((await call(server.url, writer, 'GET', '/api/v2/environments/acme')).status).to.equal(200);
    runCli(['token', 'revoke', writer, '--database', location]);
    const refused = await call(server.url, writer, 'GET', '/api/v2/environments/acme');
    expect(refused.status).to.equal(401);
    expect((await call(server.url, reader, 'GET', '/api/v2/environments/acme')).status).to.equal(200);

    const relisted = JSON.parse(runCli(['token', 'list', '--org', 'acme', '--json', '--database', location])) as Array<Record<string, unknown>>;
    expect(relisted.find((t) => t.id === writerId)!.revoked_at).to.be.a('string');
    const again = spawnSync(process.execPath, ['--import', 'tsx', cli, 'token', 'revoke', writerId!, '--database', location], { encoding: 'utf8' });
    expect(again.status).to.equal(1);
    expect(again.stderr).to.contain('no active token');
  });
});
