// @database
/**
 * Audit packages exported from a database changed behind the server's back (SQLite file or
 * PostgreSQL): a changed evidence row and a changed attachment are named by `verify-package`;
 * a deleted row stops the export, which says which.
 */
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { storeStory, storyAttachments, storySha } from '../packages/server/src/audit/audit-story.ts';
import { PackageVerificationError } from '../packages/server/src/audit/package-format.ts';
import { verifyPackage } from '../packages/server/src/audit/verify-package.ts';
import { rawSql } from './support/raw-sql.ts';
import { runTrailproof } from './support/processes.ts';

describe("audit packages of a database changed behind the server's back", function () {
  this.timeout(120_000);
  let server: TestServer;
  let key: string;

  beforeEach(async () => {
    server = await startTestServer();
    await storeStory((method, path, options) => server.request(method, path, options));
    await server.store.makeCheckpoints!();
    key = (await server.request('GET', '/api/v2/log/acme/key', { token: server.readToken })).body.verifier_key;
  });
  afterEach(() => server.close());

  const tamper = (tables: string[], statements: string[]) =>
    rawSql(server, [
      ...tables.flatMap((table) =>
        server.backend === 'sqlite'
          ? [`drop trigger if exists ${table}_no_update`, `drop trigger if exists ${table}_no_delete`]
          : [`alter table ${table} disable trigger user`],
      ),
      ...statements,
    ]);
  const outcome = async () => {
    const exported = await server.request('GET', '/api/v2/log/acme/export', { token: server.readToken });
    expect(exported.status).to.equal(200);
    try {
      await verifyPackage(() => Readable.from([Buffer.from(exported.bytes)]), key);
      return 'verified';
    } catch (error) {
      if (error instanceof PackageVerificationError) return `${error.reason} ${error.path}`;
      throw error;
    }
  };

  it('verifies before any change', async () => {
    expect(await outcome()).to.equal('verified');
  });

  it('names the row of a changed attestation', async () => {
    await tamper(['attestations'], ["update attestations set name = 'sbom-forged' where name = 'sbom'"]);
    expect(await outcome()).to.match(/^row-mismatch records\/\d+\/row\.json$/);
  });

  it('names a changed attachment', async () => {
    const sha = storySha(storyAttachments.junit);
    const forged = server.backend === 'sqlite' ? "X'3c666f7267656420'" : "'\\x3c666f7267656420'::bytea";
    await tamper(['blobs'], [`update blobs set content = ${forged} where sha256 = '${sha}'`]);
    expect(await outcome()).to.equal(`attachment-mismatch attachments/${sha}`);
  });

  it('refuses to export past a deleted row, naming it', async () => {
    await tamper(['attestations'], ["delete from attestations where name = 'review'"]);
    const db =
      server.backend === 'sqlite'
        ? ['--db', server.file]
        : ['--database', `${server.location}${server.location.includes('?') ? '&' : '?'}options=-c%20search_path%3D${server.schema}`];
    const exported = await runTrailproof(['export', '--org', 'acme', '-o', `${server.file || '/tmp/never'}.audit.tar.gz`, ...db]);
    expect([exported.status, exported.stderr]).to.match(/^1,trailproof: leaf \d+ vouches for attestations#\d+, which the database no longer holds/);
  });
});
