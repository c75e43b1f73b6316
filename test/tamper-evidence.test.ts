// @database
/**
 * Tamper evidence: every piece of evidence is chained per organisation; the database refuses
 * UPDATE and DELETE (and, on PostgreSQL, TRUNCATE) of evidence rows; a row altered behind the
 * server's back (triggers dropped first, as an intruder would) makes `verify` fail at exactly
 * that record, and so does a row inserted behind its back or one whose chain record was removed.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { verifyEvidence } from '@trailproof/schema';
import { BetterSqlite3, assertMatchesContract, type TestServer } from '@trailproof/server/testing';
import pg from 'pg';
import { builtTesting } from './support/built-testing.ts';
import { runTrailproof } from './support/processes.ts';
import { rawSql } from './support/raw-sql.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** `trailproof verify` against the test server's database (on PostgreSQL, its schema through PGOPTIONS). */
function verifyCli(server: TestServer) {
  const env = { ...process.env, ...(server.schema ? { PGOPTIONS: `-c search_path=${server.schema}` } : {}) };
  const database = server.backend === 'sqlite' ? ['--db', server.file] : ['--database', server.location];
  return runTrailproof(['verify', '--org', 'acme', ...database], env);
}

/** Reads rows behind the server's back. */
async function rawRows(server: TestServer, query: string): Promise<Array<Record<string, unknown>>> {
  if (server.backend === 'sqlite') {
    const db = new BetterSqlite3(server.file, { readonly: true });
    try {
      return db.prepare(query).all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: server.location, options: `-c search_path=${server.schema}` });
  await client.connect();
  try {
    return (await client.query(query)).rows;
  } finally {
    await client.end();
  }
}

async function storeEvidence(server: TestServer) {
  const ok = (status: number, expected: number[]) => expect(expected).to.include(status);
  ok((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 'b1' }) } })).status, [201]);
  ok(
    (
      await server.request('POST', '/api/v2/attestations/acme/app/trail/b1/junit', {
        form: {
          data_json: JSON.stringify({
            attestation_name: 'unit',
            artifact_fingerprint: sha('app'),
            junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 3, duration: 1 }],
          }),
          attachment_file: { content: '<testsuite name="s" tests="3"/>', name: 'junit.xml' },
        },
      })
    ).status,
    [201],
  );
  ok((await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'prod', type: 'server' } })).status, [201]);
  ok(
    (
      await server.request('PUT', '/api/v2/environments/acme/prod/report/server', {
        json: { artifacts: [{ digests: { app: sha('app') }, creationTimestamp: 1_763_800_000 }] },
      })
    ).status,
    [201],
  );
  ok(
    (await server.request('POST', '/api/v2/approvals/acme/app', { json: { artifact_fingerprint: sha('app'), description: 'release 1', src_commit_list: [] } }))
      .status,
    [201],
  );
  ok((await server.request('PUT', '/api/v2/approvals/acme/app/1', { json: { state: 'APPROVED', approved_by: 'ada', comment: 'ok' } })).status, [200]);
}

describe('tamper evidence: hash chain, append-only rows, verify', function () {
  this.timeout(180_000);
  let server: TestServer;
  beforeEach(async () => {
    // The built server: each `verify` on SQLite starts a thread, which under tsx compiles the sources first.
    server = await (await builtTesting()).startTestServer();
    await storeEvidence(server);
  });
  afterEach(() => server.close());

  const verify = async () => {
    const res = await server.request('GET', '/api/v2/verify/acme', { token: server.readToken });
    expect(res.status).to.equal(200);
    assertMatchesContract(verifyEvidence, 200, res.body);
    return res.body as {
      ok: boolean;
      records: number;
      head: string;
      first_broken: null | { seq: number; type: string; ref: { table: string; id: number } | null; reason: string };
    };
  };

  it('chains every piece of evidence and verifies it, by endpoint and by command', async () => {
    const result = await verify();
    expect(result).to.include({ ok: true, records: 5, first_broken: null });
    expect(result.head).to.match(/^[a-f0-9]{64}$/);
    const other = await server.request('GET', '/api/v2/verify/globex', { token: server.otherToken });
    expect(other.body).to.include({ ok: true, records: 0 });
    expect((await server.request('GET', '/api/v2/verify/acme', { token: server.otherToken })).status).to.equal(403);
    const cliRun = await verifyCli(server);
    expect(cliRun.status, cliRun.stderr).to.equal(0);
    expect(cliRun.stdout).to.contain(`acme: ok, 5 records, head ${result.head}`);
  });

  it('refuses UPDATE and DELETE of evidence rows in the database itself', async () => {
    for (const statement of [
      `update attestations set compliant = 0`,
      `delete from attestations`,
      `update snapshots set artifacts = '[]'`,
      `delete from deployments`,
      `update approvals set description = 'x'`,
      `delete from reviews`,
      `update blobs set size = 0`,
      `delete from evidence_log`,
      `delete from trails`,
    ]) {
      let refused = '';
      await rawSql(server, [statement]).catch((error: Error) => (refused = error.message));
      expect(refused, statement).to.match(/append-only/);
    }
    expect((await verify()).ok).to.equal(true);
  });

  it('finds an attestation altered behind its back, at that record', async () => {
    const dropTrigger =
      server.backend === 'sqlite' ? `drop trigger attestations_no_update` : `alter table attestations disable trigger attestations_append_only`;
    await rawSql(server, [dropTrigger, `update attestations set data = replace(data, '"total":3', '"total":30')`]);
    const result = await verify();
    expect(result.ok).to.equal(false);
    expect(result.records).to.equal(1); // the trail begin before it is intact
    expect(result.first_broken).to.deep.include({ seq: 2, type: 'attestation' });
    expect(result.first_broken!.ref!.table).to.equal('attestations');
    expect(result.first_broken!.reason).to.match(/changed after it was stored/);
    const cliRun = await verifyCli(server);
    expect(cliRun.status).to.equal(1);
    expect(cliRun.stdout).to.contain('acme: BROKEN at record 2 (attestation attestations#');
  });

  const disable = (table: string) =>
    server.backend === 'sqlite'
      ? [`drop trigger ${table}_no_update`, `drop trigger ${table}_no_delete`]
      : [`alter table ${table} disable trigger ${table}_append_only`];

  it('finds who stored an attestation, snapshot, approval or review rewritten or erased behind its back; each begin record names its token', async () => {
    const tokenId = server.token.split('_')[1];
    const records = await rawRows(server, `select type, record from evidence_log order by seq`);
    expect(records.filter((r) => r.type === 'trail.begin').map((r) => JSON.parse(String(r.record)).data.by)).to.deep.equal([tokenId]);
    // The rows in chain order (storeEvidence): the trail's begin is record 1.
    for (const [table, type, seq] of [
      ['attestations', 'attestation', 2],
      ['snapshots', 'snapshot', 3],
      ['approvals', 'approval', 4],
      ['reviews', 'review', 5],
    ] as const) {
      expect(
        (await rawRows(server, `select created_by_token from ${table}`)).map((r) => r.created_by_token),
        table,
      ).to.deep.equal([tokenId]);
      await rawSql(server, disable(table));
      for (const value of [`'someoneElse12345'`, 'null']) {
        await rawSql(server, [`update ${table} set created_by_token = ${value}`]);
        const result = await verify();
        expect(result.first_broken, `${table} ${value}`).to.deep.include({ seq, type });
        expect(result.first_broken!.reason).to.match(/changed after it was stored/);
        await rawSql(server, [`update ${table} set created_by_token = '${tokenId}'`]);
        expect((await verify()).ok, `${table} restored`).to.equal(true);
      }
    }
  });

  it('finds a passing attestation inserted behind its back, naming its row', async () => {
    await rawSql(server, [
      `insert into attestations (trail_id, name, type, data, compliant, created_at)
      select id, 'security', 'generic', '{"is_compliant":true}', 1, created_at + 1 from trails where name = 'b1'`,
    ]);
    const result = await verify();
    expect(result.ok).to.equal(false);
    expect(result.records).to.equal(5); // the chain itself is whole: the row has no record in it
    expect(result.first_broken).to.deep.include({ seq: 6, type: 'attestation', ref: { table: 'attestations', id: 2 } });
    expect(result.first_broken!.reason).to.match(/no chain record/);
    const cliRun = await verifyCli(server);
    expect(cliRun.status, cliRun.stderr).to.equal(1);
    expect(cliRun.stdout).to.contain('acme: BROKEN at record 6 (attestation attestations#2)');
  });

  it('finds the newest chain records removed, and an emptied chain, while the evidence remains', async () => {
    await rawSql(server, [...disable('evidence_log'), `delete from evidence_log where seq >= 4`]);
    const truncated = await verify();
    expect(truncated).to.include({ ok: false, records: 3 });
    expect(truncated.first_broken).to.deep.include({ seq: 4, type: 'approval', ref: { table: 'approvals', id: 1 } });
    expect(truncated.first_broken!.reason).to.match(/no chain record/);

    await rawSql(server, [`delete from evidence_log`]);
    const emptied = await verify();
    expect(emptied).to.include({ ok: false, records: 0 });
    expect(emptied.first_broken).to.deep.include({ seq: 1, type: 'trail.begin', ref: { table: 'trails', id: 1 } });
  });

  it('finds a second record vouching for a row that has one already', async () => {
    // An intruder who can recompute hashes (the chain is not signed: publish its head) appends a copy of the attestation's record.
    const [attestation] = await rawRows(server, `select record from evidence_log where seq = 2`);
    const { head } = await verify();
    const record = JSON.stringify({ ...JSON.parse(String(attestation!.record)), seq: 6, at: 1_900_000_000 });
    await rawSql(server, [
      `insert into evidence_log (organization_id, seq, type, record, prev_hash, hash, created_at)
      select organization_id, 6, type, '${record}', '${head}', '${sha(head + record)}', 1900000000 from evidence_log where seq = 2`,
    ]);
    const result = await verify();
    expect(result).to.include({ ok: false, records: 5 });
    expect(result.first_broken).to.deep.include({ seq: 6, type: 'attestation', ref: { table: 'attestations', id: 1 } });
    expect(result.first_broken!.reason).to.match(/vouched for by record 2 already/);
  });

  it("finds a record that vouches for another organisation's row", async () => {
    expect(
      (await server.request('PUT', '/api/v2/trails/globex/app', { token: server.otherToken, form: { data_json: JSON.stringify({ name: 'g1' }) } })).status,
    ).to.equal(201);
    expect(
      (
        await server.request('POST', '/api/v2/attestations/globex/app/trail/g1/junit', {
          token: server.otherToken,
          form: {
            data_json: JSON.stringify({ attestation_name: 'unit', junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 1 }] }),
          },
        })
      ).status,
    ).to.equal(201);
    // globex's record of its attestation, appended to acme's chain with acme's name and position (rehashed).
    const [theirs] = await rawRows(
      server,
      `select l.record from evidence_log l join organizations o on o.id = l.organization_id where o.name = 'globex' and l.type = 'attestation'`,
    );
    const { head } = await verify();
    const record = JSON.stringify({ ...JSON.parse(String(theirs!.record)), seq: 6, org: 'acme' });
    await rawSql(server, [
      `insert into evidence_log (organization_id, seq, type, record, prev_hash, hash, created_at)
      select id, 6, 'attestation', '${record}', '${head}', '${sha(head + record)}', 1900000000 from organizations where name = 'acme'`,
    ]);
    const result = await verify();
    expect(result).to.include({ ok: false, records: 5 });
    expect(result.first_broken).to.deep.include({ seq: 6, type: 'attestation', ref: { table: 'attestations', id: 2 } });
    expect(result.first_broken!.reason).to.match(/belongs to another organisation/);
  });

  it('accepts trail begins recorded before begin records named their row, by flow and trail name', async () => {
    // Records written by earlier versions: a begin without `ref` and `digest`. Rebuild acme's chain (the only one here) so.
    const rows = await rawRows(server, `select organization_id, seq, type, record, created_at from evidence_log order by seq`);
    let previous = '0'.repeat(64);
    const rebuilt = rows.map((row) => {
      const { ref, digest, ...rest } = JSON.parse(String(row.record));
      const record = JSON.stringify(row.type === 'trail.begin' ? rest : { ...rest, ref, digest });
      const hash = sha(previous + record);
      const values = `(${row.organization_id}, ${row.seq}, '${row.type}', '${record}', '${previous}', '${hash}', ${row.created_at})`;
      previous = hash;
      return values;
    });
    await rawSql(server, [
      ...disable('evidence_log'),
      `delete from evidence_log`,
      `insert into evidence_log (organization_id, seq, type, record, prev_hash, hash, created_at) values ${rebuilt.join(', ')}`,
    ]);
    expect(await verify()).to.include({ ok: true, records: 5 });
    // Such a begin vouches for the trail's existence only; a trail no record names is still found.
    await rawSql(server, [
      `insert into trails (flow_id, name, description, created_at, last_modified_at) select flow_id, 'b2', '', created_at, created_at from trails`,
    ]);
    expect((await verify()).first_broken).to.deep.include({ seq: 6, type: 'trail.begin', ref: { table: 'trails', id: 2 } });
  });

  it('refuses TRUNCATE of evidence tables on PostgreSQL', async function () {
    if (server.backend !== 'postgres') return this.skip(); // SQLite has no TRUNCATE
    for (const table of ['attestations', 'snapshots', 'deployments', 'approvals', 'reviews', 'blobs', 'trails', 'evidence_log']) {
      let refused = '';
      await rawSql(server, [`truncate table ${table} cascade`]).catch((error: Error) => (refused = error.message));
      expect(refused, table).to.match(/append-only: TRUNCATE/);
    }
    expect((await verify()).ok).to.equal(true);
  });

  for (const [column, value] of [
    ['repo_info', `'{"name":"someone-else/app"}'`],
    ['git_commit_info', `'{"sha1":"0000000000000000000000000000000000000000"}'`],
    ['template_sha256', `(select sha256 from blobs limit 1)`],
    ['created_by_token', `'someoneElse12345'`],
    ['created_by_token', 'null'],
  ] as const) {
    it(`finds a trail whose ${column} was edited behind its back (set to ${value}), at its latest begin`, async () => {
      // A re-begin updates the trail in place: its new record vouches for what the row holds now.
      expect(
        (
          await server.request('PUT', '/api/v2/trails/acme/app', {
            form: { data_json: JSON.stringify({ name: 'b1', repo_info: { name: 'acme/app', url: 'https://example.com/acme/app' } }) },
          })
        ).status,
      ).to.equal(200);
      expect(await verify()).to.include({ ok: true, records: 6 });

      await rawSql(server, [`update trails set ${column} = ${value} where name = 'b1'`]);
      const result = await verify();
      expect(result).to.include({ ok: false, records: 5 });
      expect(result.first_broken).to.deep.include({ seq: 6, type: 'trail.begin', ref: { table: 'trails', id: 1 } });
      expect(result.first_broken!.reason).to.match(/changed after/);
    });
  }

  it('finds a swapped attachment, an edited chain record and a removed record', async () => {
    await rawSql(server, [...disable('blobs'), `update blobs set content = ${server.backend === 'sqlite' ? `X'00'` : `'\\x00'::bytea`} where size > 10`]);
    expect((await verify()).first_broken).to.deep.include({ seq: 2, type: 'attestation' });

    await rawSql(server, [
      ...disable('evidence_log'),
      `update evidence_log set record = replace(record, '"release_number":1', '"release_number":7') where seq = 4`,
    ]);
    const edited = await verify();
    expect(edited.first_broken!.seq).to.equal(2); // still the first break
    await rawSql(server, [`delete from evidence_log where seq = 2`]);
    const removed = await verify();
    expect(removed.first_broken).to.deep.include({ seq: 3 });
    expect(removed.first_broken!.reason).to.match(/missing/);
  });
});
