// @database
/** `trailproof serve`: the installed command, its JSON log, LOG_LEVEL, the console at /ui and the SQLite size cap. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { testBackend, waitUntil } from '@trailproof/server/testing';
import { call, commandFixture, root, run } from '../../../../test/support/cli-command.ts';

describe('the trailproof command', function () {
  this.timeout(60_000);
  let dir = '';
  let db = '';
  let file = '';
  const start = commandFixture((place) => ({ dir, db, file } = place));

  it('the installed command (bin/trailproof.js, node without a loader) serves and stores attestations', async () => {
    // The attestation is stored by SQLite's writer thread, which must load the TypeScript sources by itself.
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    const s = await start(['--database', db, '--port', '0', '--host', '127.0.0.1'], {}, 'installed');
    expect((await call(s.url, token, 'PUT', '/api/v2/trails/acme/app', { data_json: JSON.stringify({ name: 't1' }) })).status).to.equal(201);
    const attested = await call(s.url, token, 'POST', '/api/v2/attestations/acme/app/trail/t1/junit', {
      data_json: JSON.stringify({ attestation_name: 'unit', junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 0.1 }] }),
    });
    expect(attested).to.deep.equal({ status: 201, body: "junit attestation 'unit' was added to trail 't1'" });
    const trail = (await call(s.url, token, 'GET', '/api/v2/trails/acme/app/t1')).body as {
      compliance_status: { attestations_statuses: Array<{ attestation_name: string }> };
    };
    expect(trail.compliance_status.attestations_statuses.map((a) => a.attestation_name)).to.deep.equal(['unit']);
  });

  it('serve logs listening first, then one JSON line per request without the token', async () => {
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    const s = await start(['--database', db, '--port', '0', '--host', '127.0.0.1']);
    const version = (JSON.parse(readFileSync(join(root, 'packages/server/package.json'), 'utf8')) as { version: string }).version;
    const database = testBackend === 'postgres' ? `${new URL(db).host}${new URL(db).pathname}` : db;
    expect(s.lines[0]).to.include({ msg: 'listening', version, database, backend: testBackend, url: s.url });
    // What a newcomer needs next: where the console is, and how to make a first token for it and the API.
    expect(s.lines[0]).to.include({
      console: `${s.url}/ui`,
      first_token: `trailproof token create --org YOUR_ORG ${testBackend === 'postgres' ? '--database URL (the same URL)' : `--db ${db}`}`,
    });
    expect(s.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.url).not.to.match(/:0$/);

    expect((await call(s.url, token, 'GET', '/api/v2/environments/acme?per_page=5')).status).to.equal(200);
    // The request's log line comes after its answer: waited for, not slept for (200 ms was short at load 20).
    expect(await waitUntil(() => s.lines.some((l) => l.msg === 'request'), 30_000), 'a request log line').to.equal(true);
    const requests = s.lines.filter((l) => l.msg === 'request');
    expect(requests).to.have.length(1);
    expect(requests[0]).to.include({ level: 'info', method: 'GET', path: '/api/v2/environments/acme', status: 200 });
    expect(requests[0]!.duration_ms).to.be.a('number').and.to.be.at.least(0);
    expect(requests[0]!.time).to.be.a('string');
    const written = s.lines.map((l) => JSON.stringify(l)).join('\n');
    expect(written).not.to.contain(token);
    expect(written).not.to.contain(token.slice(20));
    expect(written).not.to.contain('per_page'); // the path is logged without the query

    expect((await call(s.url, 'tp_nope', 'GET', '/api/v2/environments/acme')).status).to.equal(401);
    expect(await waitUntil(() => s.lines.filter((l) => l.msg === 'request').length >= 2, 30_000), 'a second request log line').to.equal(true);
    expect(s.lines.filter((l) => l.msg === 'request').map((l) => l.status)).to.deep.equal([200, 401]);
  });

  it('serve names PostgreSQL by host and database on its first line, never the password', async function () {
    if (testBackend !== 'postgres') return this.skip(); // the test cluster trusts every password
    const url = new URL(db);
    url.username = 'postgres';
    url.password = 'pa@ss/Xyzzy';
    const s = await start(['--database', url.toString(), '--port', '0'], { LOG_LEVEL: 'debug' });
    expect(s.lines[0]).to.include({ msg: 'listening', backend: 'postgres', database: `${url.host}${url.pathname}` });
    expect((await fetch(`${s.url}/readyz`)).status).to.equal(200);
    expect(await waitUntil(() => s.lines.some((l) => l.msg === 'store call'), 30_000), 'a debug store call line').to.equal(true);
    const written = s.lines.map((l) => JSON.stringify(l)).join('\n');
    expect(written).to.contain('store call');
    expect(written).not.to.contain('pa@ss').and.not.to.contain('pa%40ss').and.not.to.contain('Xyzzy');
  });

  it('serve refuses an unknown LOG_LEVEL with its usage (exit 2)', async () => {
    const result = await run(['serve', '--database', db, '--port', '0'], { LOG_LEVEL: 'verbose' });
    expect(result.status).to.equal(2);
    expect(result.stderr).to.contain("LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not 'verbose'");
  });

  it('serve reads TRAILPROOF_METRICS: /metrics by default, none with off', async () => {
    const served = await start(['--database', db, '--port', '0']);
    expect((await fetch(`${served.url}/metrics`)).status).to.equal(200);
    const off = await start(['--database', db, '--port', '0'], { TRAILPROOF_METRICS: 'off' });
    expect((await fetch(`${off.url}/metrics`)).status).to.equal(404);
  });

  it('serves the console at /ui with sign-ins lasting TRAILPROOF_CONSOLE_SESSION_TTL; --no-console leaves it out', async () => {
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    // A provider too (discovered at the first sign-in through it, so none need answer here): both ways offered.
    const provider = {
      TRAILPROOF_OIDC_ISSUER: 'http://127.0.0.1:9',
      TRAILPROOF_OIDC_CLIENT_ID: 'tp',
      TRAILPROOF_OIDC_CLIENT_SECRET: 's',
      TRAILPROOF_OIDC_LABEL: 'Example SSO',
    };
    const s = await start(['--database', db, '--port', '0'], { TRAILPROOF_CONSOLE_SESSION_TTL: '30m', ...provider });
    const page = await (await fetch(`${s.url}/ui/sign-in`)).text();
    expect(page).to.contain('Sign in with Example SSO').and.contain('name="token"');
    const signIn = await fetch(`${s.url}/ui/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: s.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
    expect(signIn.status).to.equal(303);
    const expires = Date.parse(/expires=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')![1]!);
    expect(expires - Date.now()).to.be.within(29 * 60_000, 30 * 60_000 + 1000);
    const bare = await start(['--database', db, '--port', '0', '--no-console']);
    expect(bare.lines[0], 'no console URL without the console').not.to.have.property('console');
    const root = await fetch(`${bare.url}/ui/sign-in`);
    expect([root.status, root.headers.get('content-type')]).to.deep.equal([404, 'application/json; charset=utf-8']);
    const bad = await run(['serve', '--database', db, '--port', '0'], { TRAILPROOF_CONSOLE_SESSION_TTL: 'forever' });
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.contain("TRAILPROOF_CONSOLE_SESSION_TTL must be a number and a unit (m, h, d or w), such as 12h, not 'forever'");
  });

  it('refuses a TRAILPROOF_TRUST_PROXY or TRAILPROOF_FAILED_TOKEN_CHECKS_PER_MINUTE it cannot read, with exit code 2', async () => {
    const proxy = await run(['serve', '--database', db, '--port', '0'], { TRAILPROOF_TRUST_PROXY: 'maybe' });
    expect(proxy.status).to.equal(2);
    expect(proxy.stderr).to.contain("TRAILPROOF_TRUST_PROXY must be true or false, not 'maybe'");
    const checks = await run(['serve', '--database', db, '--port', '0'], { TRAILPROOF_FAILED_TOKEN_CHECKS_PER_MINUTE: '0' });
    expect(checks.status).to.equal(2);
    expect(checks.stderr).to.contain("TRAILPROOF_FAILED_TOKEN_CHECKS_PER_MINUTE must be a whole number from 1 to 1000000, not '0'");
  });

  it('caps a SQLite file at TRAILPROOF_SQLITE_MAX_SIZE: a write beyond it answers 507, and a bad size is refused', async function () {
    if (testBackend !== 'sqlite') return this.skip();
    const token = (await run(['token', 'create', '--org', 'acme', '--db', file])).stdout.trim();
    const s = await start(['--db', file, '--port', '0'], { TRAILPROOF_SQLITE_MAX_SIZE: '2MB' });
    expect((await call(s.url, token, 'PUT', '/api/v2/trails/acme/app', { data_json: JSON.stringify({ name: 't1' }) })).status).to.equal(201);
    const big = new FormData();
    big.append('data_json', JSON.stringify({ attestation_name: 'big', is_compliant: true }));
    big.append('attachment_file', new Blob(['x'.repeat(3 * 1024 * 1024)]), 'big.txt'); // over the 2MB cap, under the 10MB file limit
    const refused = await fetch(`${s.url}/api/v2/attestations/acme/app/trail/t1/generic`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: big,
    });
    expect(refused.status).to.equal(507);
    expect(((await refused.json()) as { message: string }).message).to.match(/^Insufficient storage/);
    const small = await call(s.url, token, 'POST', '/api/v2/attestations/acme/app/trail/t1/generic', {
      data_json: JSON.stringify({ attestation_name: 'small', is_compliant: true }),
    });
    expect(small.status, 'what fits is stored').to.equal(201);

    for (const size of ['12XB', '100KB']) {
      const result = await run(['serve', '--db', file], { TRAILPROOF_SQLITE_MAX_SIZE: size });
      expect(result.status, size).to.equal(2);
      expect(result.stderr).to.contain(`TRAILPROOF_SQLITE_MAX_SIZE must be a size of at least 1MB, as 500MB or 20GB, not '${size}'`);
    }
  });
});
