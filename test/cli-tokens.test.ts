// @database
/**
 * `trailproof token list` never shows secrets; `token revoke` stops a token at once, even for a
 * running server; `token evidence` lists what a token stored.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { createToken, openStore } from '@trailproof/server';
import { limits } from '@trailproof/schema';
import { openTestStore } from '@trailproof/server/testing';
import { call, runCli, runTrailproof, startServerProcess, type ServerProcess } from './support/processes.ts';

describe('trailproof token list / revoke / evidence', function () {
  this.timeout(180_000); // each command is a process of its own (about 3 s on a loaded two-core machine)
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
    const writer = (await runCli(['token', 'create', '--org', 'acme', '--description', 'ci pipeline', '--database', location])).trim();
    const reader = (await runCli(['token', 'create', '--org', 'acme', '--read-only', '--database', location])).trim();
    await runCli(['token', 'create', '--org', 'globex', '--database', location]);
    const [, writerId, writerSecret] = /^tp_([A-Za-z0-9]{16})_(.+)$/.exec(writer)!;

    const listed = JSON.parse(await runCli(['token', 'list', '--org', 'acme', '--json', '--database', location])) as Array<Record<string, unknown>>;
    expect(listed.map((t) => t.id)).to.have.members([writerId, /^tp_([A-Za-z0-9]{16})_/.exec(reader)![1]]);
    expect(listed.find((t) => t.id === writerId)).to.include({
      org: 'acme',
      access: 'read-write',
      status: 'active',
      description: 'ci pipeline',
      revoked_at: null,
    });
    const table = await runCli(['token', 'list', '--database', location]);
    expect(table).to.contain('globex').and.to.contain('read-only');
    expect(table).not.to.contain(writerSecret!);
    if (!location.startsWith('postgres')) expect(readFileSync(location).includes(Buffer.from(writerSecret!))).to.equal(false);

    server = await startServerProcess(['--database', location]);
    expect((await call(server.url, writer, 'GET', '/api/v2/environments/acme')).status).to.equal(200);
    await runCli(['token', 'revoke', writer, '--database', location]);
    const refused = await call(server.url, writer, 'GET', '/api/v2/environments/acme');
    expect(refused.status).to.equal(401);
    expect((await call(server.url, reader, 'GET', '/api/v2/environments/acme')).status).to.equal(200);

    const relisted = JSON.parse(await runCli(['token', 'list', '--org', 'acme', '--json', '--database', location])) as Array<Record<string, unknown>>;
    expect(relisted.find((t) => t.id === writerId)!.revoked_at).to.be.a('string');
    expect(relisted.find((t) => t.id === writerId)!.status).to.equal('revoked');
    const again = await runTrailproof(['token', 'revoke', writerId!, '--database', location]);
    expect(again.status).to.equal(1);
    expect(again.stderr).to.contain('no active token');
  });

  it("lists what a token stored (token evidence): trails it began or began again, attestations, snapshots, approvals and reviews; no one else's", async () => {
    const leaked = (await runCli(['token', 'create', '--org', 'umbrella', '--description', 'leaked', '--database', location])).trim();
    const other = (await runCli(['token', 'create', '--org', 'umbrella', '--database', location])).trim();
    const leakedId = /^tp_([A-Za-z0-9]{16})_/.exec(leaked)![1]!;
    server ??= await startServerProcess(['--database', location]);
    const form = (data: unknown) => {
      const f = new FormData();
      f.append('data_json', JSON.stringify(data));
      return { form: f };
    };
    const ok = async (token: string, method: string, path: string, body: { json?: unknown; form?: FormData }, status: number) =>
      expect((await call(server!.url, token, method, path, body)).status, `${method} ${path}`).to.equal(status);
    const junit = { attestation_name: 'unit', junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 1 }] };
    const fingerprint = 'a'.repeat(64);
    await ok(leaked, 'PUT', '/api/v2/trails/umbrella/app', form({ name: 't1' }), 201);
    await ok(leaked, 'POST', '/api/v2/attestations/umbrella/app/trail/t1/junit', form(junit), 201);
    // The other token's trail even carries the leaked id in its user data: it is not the leaked token's.
    await ok(other, 'PUT', '/api/v2/trails/umbrella/app', form({ name: 't2', user_data: { by: leakedId } }), 201);
    await ok(other, 'POST', '/api/v2/attestations/umbrella/app/trail/t2/junit', form(junit), 201);
    await ok(leaked, 'PUT', '/api/v2/trails/umbrella/app', form({ name: 't2', description: 'changed by the leaked token' }), 200);
    await ok(leaked, 'POST', '/api/v2/attestations/umbrella/app/trail/t2/generic', form({ attestation_name: 'manual', is_compliant: true }), 201);
    await ok(other, 'PUT', '/api/v2/environments/umbrella', { json: { name: 'prod', type: 'server' } }, 201);
    await ok(
      leaked,
      'PUT',
      '/api/v2/environments/umbrella/prod/report/server',
      { json: { artifacts: [{ digests: { app: fingerprint }, creationTimestamp: 1_763_800_000 }] } },
      201,
    );
    await ok(
      other,
      'POST',
      '/api/v2/approvals/umbrella/app',
      { json: { artifact_fingerprint: fingerprint, description: 'release 1', src_commit_list: [] } },
      201,
    );
    await ok(leaked, 'PUT', '/api/v2/approvals/umbrella/app/1', { json: { state: 'APPROVED', approved_by: 'mallory', comment: 'ok' } }, 200);
    await ok(
      leaked,
      'POST',
      '/api/v2/approvals/umbrella/app',
      { json: { artifact_fingerprint: fingerprint, description: 'release 2', src_commit_list: [] } },
      201,
    );

    const listed = JSON.parse(await runCli(['token', 'evidence', leaked, '--json', '--database', location])) as Array<Record<string, unknown>>;
    expect(listed.map((r) => [r.org, r.what, r.where, String(r.detail).replace(/, id \d+/, '')])).to.deep.equal([
      ['umbrella', 'began trail', 'app/t1', '-'],
      ['umbrella', 'attestation', 'app/t1', 'unit (junit)'],
      ['umbrella', 'began trail again', 'app/t2', '-'],
      ['umbrella', 'attestation', 'app/t2', 'manual (generic)'],
      ['umbrella', 'environment snapshot', 'prod', '#1'],
      ['umbrella', 'approval review', 'app release 1', 'APPROVED by mallory'],
      ['umbrella', 'approval request', 'app release 2', '-'],
    ]);
    expect(listed[1])
      .to.include({ flow: 'app', trail: 't1', attestation_name: 'unit', attestation_type: 'junit' })
      .and.to.have.property('attestation_id')
      .that.is.a('number');
    expect(listed.map((r) => Date.parse(String(r.at)))).to.satisfy((times: number[]) =>
      times.every((t, i) => Number.isFinite(t) && (i === 0 || t >= times[i - 1]!)),
    );
    const table = (await runCli(['token', 'evidence', leakedId, '--database', location])).trim().split('\n');
    expect(table[0]!.split('\t')).to.deep.equal(['TIME', 'ORG', 'WHAT', 'WHERE', 'DETAIL']);
    expect(
      table.slice(1).map((line) =>
        line
          .split('\t')
          .slice(2)
          .join(' | ')
          .replace(/, id \d+/, ''),
      ),
    ).to.deep.equal(listed.map((r) => `${r.what} | ${r.where} | ${String(r.detail).replace(/, id \d+/, '')}`));
    expect(JSON.parse(await runCli(['token', 'evidence', other, '--json', '--database', location])).map((r: { what: string }) => r.what)).to.deep.equal([
      'began trail',
      'attestation',
      'approval request',
    ]);

    const unknown = await runTrailproof(['token', 'evidence', 'Zz0000000000000Z', '--database', location]);
    expect([unknown.status, unknown.stderr.trim()]).to.deep.equal([1, "trailproof: no token with id 'Zz0000000000000Z'"]);
    const missing = await runTrailproof(['token', 'evidence', '--database', location]);
    expect(missing.status).to.equal(2);
    expect(missing.stderr).to.contain('token evidence needs one token id');
  });

  it('creates tokens that expire (--expires-in, --expires-at), lists their expiry, and refuses expiries that make no sense', async () => {
    const tokenId = (token: string) => /^tp_([A-Za-z0-9]{16})_/.exec(token)![1]!;
    const before = Date.now();
    const inThirtyDays = tokenId((await runCli(['token', 'create', '--org', 'initech', '--expires-in', '30d', '--database', location])).trim());
    const after = Date.now();
    const atDate = tokenId((await runCli(['token', 'create', '--org', 'initech', '--expires-at', '2999-01-31', '--database', location])).trim());
    const atTime = tokenId((await runCli(['token', 'create', '--org', 'initech', '--expires-at', '2999-01-31T18:30:00+02:00', '--database', location])).trim());
    const never = tokenId((await runCli(['token', 'create', '--org', 'initech', '--database', location])).trim());

    const listed = JSON.parse(await runCli(['token', 'list', '--org', 'initech', '--json', '--database', location])) as Array<{
      id: string;
      expires_at: string | null;
    }>;
    const expiry = (id: string) => listed.find((t) => t.id === id)!.expires_at;
    const thirtyDays = 30 * 86_400_000;
    expect(Date.parse(expiry(inThirtyDays)!)).to.be.within(before + thirtyDays - 1, after + thirtyDays + 1);
    expect(expiry(atDate)).to.equal('2999-01-31T00:00:00.000Z');
    expect(expiry(atTime)).to.equal('2999-01-31T16:30:00.000Z');
    expect(expiry(never)).to.equal(null);
    const table = (await runCli(['token', 'list', '--org', 'initech', '--database', location])).split('\n');
    expect(table[0]!.split('\t')).to.deep.equal(['ID', 'ORG', 'ACCESS', 'STATUS', 'CREATED', 'REVOKED', 'EXPIRES', 'DESCRIPTION']);
    expect(table.find((line) => line.startsWith(atDate))!.split('\t')[6]).to.equal('2999-01-31T00:00:00.000Z');
    expect(table.find((line) => line.startsWith(never))!.split('\t')[6]).to.equal('-');
    expect(listed.map((t) => (t as { status?: string }).status)).to.deep.equal(['active', 'active', 'active', 'active']);

    // One whose time is up is listed as expired (made through the library: the command takes a minute at least).
    const store = await openStore(location);
    const expiresAt = Date.now() / 1000 + 1;
    const soon = await createToken(store, { org: 'initech', expiresAt }).finally(() => store.close());
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt * 1000 - Date.now()) + 50));
    const statuses = JSON.parse(await runCli(['token', 'list', '--org', 'initech', '--json', '--database', location])) as Array<{ id: string; status: string }>;
    expect(statuses.find((t) => t.id === soon.id)!.status).to.equal('expired');

    const refused: Array<[string[], string]> = [
      [['--expires-in', '0d'], '--expires-in takes a number and a unit'],
      [['--expires-in', '10y'], '--expires-in takes a number and a unit'],
      [['--expires-in', '90'], '--expires-in takes a number and a unit'],
      [['--expires-at', '2020-01-01'], 'is not in the future'],
      [['--expires-at', 'tomorrow'], '--expires-at takes a date or an ISO 8601 time'],
      [['--expires-at', '2999-01-31T18:30'], '--expires-at takes a date or an ISO 8601 time'],
      [['--expires-at', '2999-02-30'], '--expires-at takes a date or an ISO 8601 time'],
      [['--expires-in', '1d', '--expires-at', '2999-01-01'], 'give --expires-in or --expires-at, not both'],
    ];
    // At once: each is refused before it opens the database, so none waits on another.
    const results = await Promise.all(refused.map(([flags]) => runTrailproof(['token', 'create', '--org', 'initech', ...flags, '--database', location])));
    for (const [i, [flags, message]] of refused.entries()) {
      const result = results[i]!;
      expect(result.status, flags.join(' ')).to.equal(2);
      expect(result.stderr, flags.join(' ')).to.contain(message);
      expect(result.stdout, flags.join(' ')).to.equal('');
    }
    const afterwards = JSON.parse(await runCli(['token', 'list', '--org', 'initech', '--json', '--database', location])) as unknown[];
    expect(afterwards, 'no token created by a refused command').to.have.length(5);
  });

  it('refuses an organisation name the API paths cannot reach, with exit 2, and creates no organisation', async () => {
    const orgsNow = async () =>
      new Set((JSON.parse(await runCli(['token', 'list', '--json', '--database', location])) as Array<{ org: string }>).map((t) => t.org));
    const before = await orgsNow();
    // The names (300 characters too), and one past the contract's limit.
    const refused = ['acme ', ' acme', '\t', '../etc', '.hidden', 'x'.repeat(300), 'x'.repeat(limits.name + 1), ''];
    const results = await Promise.all(refused.map((org) => runTrailproof(['token', 'create', `--org=${org}`, '--database', location])));
    for (const [i, org] of refused.entries()) {
      const result = results[i]!;
      expect(result.status, JSON.stringify(org)).to.equal(2);
      expect(result.stderr, JSON.stringify(org)).to.match(org === '' ? /token create needs --org ORG/ : /--org takes a name the API's paths take/);
      expect(result.stdout, JSON.stringify(org)).to.equal('');
    }
    // What the API's paths take is taken, up to the contract's limit: the organisation is then reachable.
    const longest = 'a'.repeat(limits.name);
    const token = (await runCli(['token', 'create', '--org', longest, '--database', location])).trim();
    expect([...(await orgsNow())].filter((org) => !before.has(org))).to.deep.equal([longest]);
    server ??= await startServerProcess(['--database', location]);
    expect((await call(server.url, token, 'GET', `/api/v2/environments/${longest}`)).status).to.equal(200);
  });
});
