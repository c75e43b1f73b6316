/**
 * Tamper evidence: every piece of evidence is chained per organisation; the database refuses
 * UPDATE and DELETE on evidence rows; a row altered behind the server's back (triggers dropped
 * first, as an intruder would) makes `verify` fail at exactly that record.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { verifyEvidence } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';
import { rawSql } from './support/raw-sql.ts';

const cli = fileURLToPath(new URL('../packages/server/src/cli.ts', import.meta.url));
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** `trailproof verify` against the test server's database (on PostgreSQL, its schema through PGOPTIONS). */
function verifyCli(server: TestServer) {
  const env = { ...process.env, ...(server.schema ? { PGOPTIONS: `-c search_path=${server.schema}` } : {}) };
  return spawnSync(process.execPath, ['--import', 'tsx', cli, 'verify', '--org', 'acme', '--database', server.location], { env, encoding: 'utf8' });
}

async function storeEvidence(server: TestServer) {
  const ok = (status: number, expected: number[]) => expect(expected).to.include(status);
  ok((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 'b1' }) } })).status, [201]);
  ok((await server.request('POST', '/api/v2/attestations/acme/app/trail/b1/junit', {
    form: {
      data_json: JSON.stringify({ attestation_name: 'unit', artifact_fingerprint: sha('app'), junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 3, duration: 1 }] }),
      attachment_file: { content: '<testsuite name="s" tests="3"/>', name: 'junit.xml' },
    },
  })).status, [201]);
  ok((await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'prod', type: 'server' } })).status, [201]);
  ok((await server.request('PUT', '/api/v2/environments/acme/prod/report/server', { json: { artifacts: [{ digests: { app: sha('app') }, creationTimestamp: 1_763_800_000 }] } })).status, [201]);
  ok((await server.request('POST', '/api/v2/approvals/acme/app', { json: { artifact_fingerprint: sha('app'), description: 'release 1', src_commit_list: [] } })).status, [201]);
  ok((await server.request('PUT', '/api/v2/approvals/acme/app/1', { json: { state: 'APPROVED', approved_by: 'ada', comment: 'ok' } })).status, [200]);
}

describe('tamper evidence: hash chain, append-only rows, verify', function () {
  this.timeout(60_000);
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
    await storeEvidence(server);
  });
  afterEach(() => server.close());

  const verify = async () => {
    const res = await server.request('GET', '/api/v2/verify/acme', { token: server.readToken });
    expect(res.status).to.equal(200);
    assertMatchesContract(verifyEvidence, 200, res.body);
    return res.body as { ok: boolean; records: number; head: string; first_broken: null | { seq: number; type: string; ref: { table: string; id: number } | null; reason: string } };
  };

  it('chains every piece of evidence and verifies it, by endpoint and by command', async () => {
    const result = await verify();
    expect(result).to.include({ ok: true, records: 5, first_broken: null });
    expect(result.head).to.match(/^[a-f0-9]{64}$/);
    const other = await server.request('GET', '/api/v2/verify/globex', { token: server.otherToken });
    expect(other.body).to.include({ ok: true, records: 0 });
    expect((await server.request('GET', '/api/v2/verify/acme', { token: server.otherToken })).status).to.equal(403);
    const cliRun = verifyCli(server);
    expect(cliRun.status, cliRun.stderr).to.equal(0);
    expect(cliRun.stdout).to.contain(`acme: ok, 5 records, head ${result.head}`);
  });

  it('refuses UPDATE and DELETE of evidence rows in the database itself', async () => {
    for (const statement of [
      `update attestations set compliant = 0`, `delete from attestations`, `update snapshots set artifacts = '[]'`, `delete from deployments`,
      `update approvals set description = 'x'`, `delete from reviews`, `update blobs set size = 0`, `delete from evidence_log`,
    ]) {
      let refused = '';
      await rawSql(server, [statement]).catch((error: Error) => (refused = error.message));
      expect(refused, statement).to.match(/append-only/);
    }
    expect((await verify()).ok).to.equal(true);
  });

  it('finds an attestation altered behind its back, at that record', async () => {
    const dropTrigger = server.backend === 'sqlite' ? `drop trigger attestations_no_update` : `alter table attestations disable trigger attestations_append_only`;
    await rawSql(server, [dropTrigger, `update attestations set data = replace(data, '"total":3', '"total":30')`]);
    const result = await verify();
    expect(result.ok).to.equal(false);
    expect(result.records).to.equal(1); // the trail begin before it is intact
    expect(result.first_broken).to.deep.include({ seq: 2, type: 'attestation' });
    expect(result.first_broken!.ref!.table).to.equal('attestations');
    expect(result.first_broken!.reason).to.match(/changed after it was stored/);
    const cliRun = verifyCli(server);
    expect(cliRun.status).to.equal(1);
    expect(cliRun.stdout).to.contain('acme: BROKEN at record 2 (attestation attestations#');
  });

  it('finds a swapped attachment, an edited chain record and a removed record', async () => {
    const disable = (table: string) => server.backend === 'sqlite'
      ? [`drop trigger ${table}_no_update`, `drop trigger ${table}_no_delete`]
      : [`alter table ${table} disable trigger ${table}_append_only`];
    await rawSql(server, [...disable('blobs'), `update blobs set content = ${server.backend === 'sqlite' ? `X'00'` : `'\\x00'::bytea`} where size > 10`]);
    expect((await verify()).first_broken).to.deep.include({ seq: 2, type: 'attestation' });

    await rawSql(server, [...disable('evidence_log'), `update evidence_log set record = replace(record, '"release_number":1', '"release_number":7') where seq = 4`]);
    const edited = await verify();
    expect(edited.first_broken!.seq).to.equal(2); // still the first break
    await rawSql(server, [`delete from evidence_log where seq = 2`]);
    const removed = await verify();
    expect(removed.first_broken).to.deep.include({ seq: 3 });
    expect(removed.first_broken!.reason).to.match(/missing/);
  });
});
