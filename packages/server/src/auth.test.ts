// @database
import { readFileSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { specOperations, type Operation } from '@trailproof/schema';
import { createToken, defaultPlugins, openPostgresStore, openSqliteStore } from '@trailproof/server';
import { startTestServer, waitUntil, type RequestOptions, type TestServer } from '@trailproof/server/testing';

const fp = createHash('sha256').update('api:1').digest('hex');
/** The six operations of SPEC.md, as the default plugins serve them. */
const operations: Operation[] = defaultPlugins.map((p) => p.operation).filter((o) => (specOperations as readonly Operation[]).includes(o));

/** A request to each operation: on resources that exist in acme, or (missing) on ones that do not. */
function requestFor(operation: Operation, org: string, missing = false): { path: string; options: RequestOptions } {
  const values: Record<string, string> = {
    org,
    flow_name: missing ? 'no-such-flow' : 'payments',
    trail_name: missing ? 'no-such-trail' : 'build-1',
    approval_number: missing ? '99' : '1',
  };
  const path = '/api/v2' + operation.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!);
  const data =
    operation.id === 'attestJunit'
      ? { attestation_name: 'unit', junit_results: [], artifact_fingerprint: fp }
      : operation.id === 'beginTrail'
        ? { name: 'build-1' }
        : undefined;
  return { path, options: data ? { form: { data_json: JSON.stringify(data) } } : {} };
}

describe('authentication and authorization on every route of the six operations', () => {
  let server: TestServer;
  let revoked = '';
  before(async () => {
    // Every route is sent every kind of refused token: more failures than one address may make a
    // minute (test/hostile/failed-auth.test.ts tests that limit).
    server = await startTestServer({ server: { failedTokenChecksPerMinute: 100_000 } });
    const org = Number((await server.store.findOrganization('acme'))!.id);
    expect(
      (await server.request('PUT', '/api/v2/trails/acme/payments', { form: { data_json: JSON.stringify({ name: 'build-1', description: 'secret-plan' }) } }))
        .status,
    ).to.equal(201);
    const flow = (await server.store.findFlow(org, 'payments'))!;
    await server.store.insertApproval({
      flowId: flow.id,
      targetArtifact: fp,
      baseArtifact: '',
      artifactName: 'api',
      description: 'secret-plan',
      environment: null,
      srcCommitList: [],
      userData: null,
      state: 'PENDING',
      reviews: [],
      createdBy: null,
      at: 1_763_000_000,
    });
    const extra = await createToken(server.store, { org: 'acme' });
    // The id is the part of the token between `tp_` and the secret.
    const id = /^tp_([A-Za-z0-9]{16})_/.exec(extra.token)![1]!;
    expect(id).to.equal(extra.id);
    expect(await server.store.revokeToken(id, Date.now() / 1000)).to.equal(true);
    revoked = extra.token;
  });
  after(() => server.close());

  it('covers the six operations, two of them writes', () => {
    expect(operations.map((o) => o.id).sort()).to.deep.equal([
      'attestJunit',
      'beginTrail',
      'getApproval',
      'listApprovals',
      'listDeployments',
      'listEnvironments',
    ]);
    expect(
      operations
        .filter((o) => o.access === 'write')
        .map((o) => o.id)
        .sort(),
    ).to.deep.equal(['attestJunit', 'beginTrail']);
  });

  for (const operation of operations) {
    describe(`${operation.method} ${operation.path}`, () => {
      const send = (token: string | null, headers: Record<string, string> = {}, org = 'acme', missing = false) => {
        const { path, options } = requestFor(operation, org, missing);
        return server.request(operation.method, path, { ...options, token, headers });
      };

      it('without an Authorization header: 401 with WWW-Authenticate: Bearer', async () => {
        const res = await send(null);
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.equal('Bearer');
        expect(res.body).to.deep.equal({ message: 'Authentication required: send Authorization: Bearer <token>' });
      });

      it('with a malformed, unknown, wrong-secret or revoked token: 401, the same answer', async () => {
        const unknown = `tp_${'A'.repeat(16)}_${'B'.repeat(43)}`;
        const wrongSecret = server.token.slice(0, -4) + (server.token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
        const cases: Array<[string, string]> = [
          ['basic', 'Basic x'],
          ['bearer alone', 'Bearer'],
          ['bearer space', 'Bearer '],
          ['not a token', 'Bearer tp_bad'],
          ['two tokens', `Bearer ${server.token} ${server.token}`],
          ['token without scheme', server.token],
          ['unknown', `Bearer ${unknown}`],
          ['wrong secret', `Bearer ${wrongSecret}`],
          ['revoked', `Bearer ${revoked}`],
        ];
        for (const [label, authorization] of cases) {
          const res = await send(null, { authorization });
          expect(res.status, label).to.equal(401);
          expect(res.headers.get('www-authenticate'), label).to.equal('Bearer');
          expect(res.body, label).to.deep.equal({ message: 'Authentication required: send Authorization: Bearer <token>' });
        }
      });

      it("another organisation's token: 403 with the same body whether or not the resource exists", async () => {
        const existing = await send(server.otherToken);
        const missing = await send(server.otherToken, {}, 'acme', true);
        const noOrg = await send(server.otherToken, {}, 'initech');
        expect([existing.status, missing.status, noOrg.status]).to.deep.equal([403, 403, 403]);
        expect(existing.body).to.deep.equal({ message: "You don't have permission to access this resource" });
        expect(missing.body).to.deep.equal(existing.body);
        expect(noOrg.body).to.deep.equal(existing.body);
        expect(new TextDecoder().decode(existing.bytes)).not.to.contain('secret-plan');
      });

      if (operation.access === 'write') {
        it('read-only token: 403, and nothing is written', async () => {
          const org = Number((await server.store.findOrganization('acme'))!.id);
          const before = (await server.attestations('payments', 'build-1')).length;
          const res = await send(server.readToken);
          expect(res.status).to.equal(403);
          expect(res.body).to.deep.equal({ message: 'This token is read-only' });
          expect(await server.attestations('payments', 'build-1')).to.have.length(before);
          expect(await server.store.findFlow(org, 'no-such-flow')).to.equal(undefined);
        });
      } else {
        it('read-only token: 200 on what exists, 404 (flows, approvals) or 200 (lists) on what does not', async () => {
          const res = await send(server.readToken);
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          const missing = await send(server.readToken, {}, 'acme', true);
          expect(missing.status).to.equal(operation.path.includes('{flow_name}') ? 404 : 200);
        });
      }

      it("the organisation's read-write token is accepted, scheme case-insensitive", async () => {
        const res = await send(null, { authorization: `bearer ${server.token}` });
        expect(res.status, JSON.stringify(res.body)).to.equal(operation.id === 'attestJunit' ? 201 : 200);
      });
    });
  }

  it('a token of an organisation that has no data gets 404 (not 403) on its own unknown flows', async () => {
    const res = await server.request('GET', '/api/v2/approvals/globex/payments', { token: server.otherToken });
    expect(res.status).to.equal(404);
  });

  it('serves the OpenAPI 3.1 document without a token, describing the six operations', async () => {
    const res = await server.request('GET', '/api/v2/openapi.json', { token: null });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    const doc = res.body;
    expect(doc.openapi).to.match(/^3\.1\.\d+$/);
    expect(doc.info.title).to.be.a('string').and.not.equal('');
    expect(doc.info.version).to.be.a('string');
    expect(doc.components.securitySchemes.bearerAuth).to.deep.equal({ type: 'http', scheme: 'bearer' });
    const ids: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      expect(path).to.match(/^\//);
      for (const [method, op] of Object.entries(item)) {
        expect(['get', 'put', 'post', 'patch', 'delete']).to.include(method);
        ids.push(op.operationId);
        const declared = new Set(op.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name));
        const inPath = new Set([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
        expect(declared, `${method} ${path}`).to.deep.equal(inPath);
        for (const p of op.parameters) if (p.in === 'path') expect(p.required).to.equal(true);
        expect(Object.keys(op.responses).length, op.operationId).to.be.above(0);
        for (const response of Object.values(op.responses) as any[]) expect(response.description).to.be.a('string');
      }
    }
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids).to.include.members(['attestJunit', 'beginTrail', 'listEnvironments', 'listApprovals', 'getApproval', 'listDeployments']);
    for (const operation of operations) expect(doc.paths[operation.path][operation.method.toLowerCase()].operationId).to.equal(operation.id);
    // every $ref points at a schema that the document holds
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).to.be.above(10);
    for (const ref of refs) {
      expect(ref).to.match(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.split('/').pop()!], ref).to.be.an('object');
    }
  });

  it('refuses a token from the first request after its revocation (on PostgreSQL by another process: once notified)', async () => {
    const openAnother = () => (server.backend === 'sqlite' ? openSqliteStore(server.file) : openPostgresStore(server.location, { schema: server.schema }));
    for (const revokedBy of ['this server', 'another process'] as const) {
      const { token, id } = await createToken(server.store, { org: 'acme' });
      // Used first, so that whatever the server remembers of it is there when it is revoked.
      for (let i = 0; i < 3; i++) expect((await server.request('GET', '/api/v2/environments/acme', { token })).status, revokedBy).to.equal(200);
      if (revokedBy === 'this server') {
        expect(await server.store.revokeToken(id, Date.now() / 1000)).to.equal(true);
      } else {
        const another = await openAnother();
        try {
          expect(await another.revokeToken(id, Date.now() / 1000)).to.equal(true);
        } finally {
          await another.close();
        }
      }
      const status = async () => (await server.request('GET', '/api/v2/environments/acme', { token })).status;
      if (server.backend === 'postgres' && revokedBy === 'another process') {
        // PostgreSQL tells this server that tokens changed by a notification, which arrives a
        // moment after the COMMIT (store/token-changes.ts): refused from then on.
        await waitUntil(async () => (await status()) === 401, 2_000, 5);
      }
      expect(await status(), revokedBy).to.equal(401);
      // A token created meanwhile by another process works at once.
      const another = await openAnother();
      const created = await createToken(another, { org: 'acme' }).finally(() => another.close());
      expect((await server.request('GET', '/api/v2/environments/acme', { token: created.token })).status, revokedBy).to.equal(200);
    }
  });

  it('refuses a token once it expires, remembered or not, telling its holder (and only its holder) why', async () => {
    const expiresAt = Date.now() / 1000 + 1;
    const { token, id } = await createToken(server.store, { org: 'acme', expiresAt });
    const list = (t: string) => server.request('GET', '/api/v2/environments/acme', { token: t });
    // Used first, so that the server remembers it (store/remembered.ts) when it expires.
    for (let i = 0; i < 3; i++) expect((await list(token)).status).to.equal(200);
    expect((await server.store.findToken(id))!.expiresAt).to.be.closeTo(expiresAt, 0.001);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, (expiresAt - Date.now() / 1000) * 1000) + 50));
    const expired = await list(token);
    expect(expired.status).to.equal(401);
    expect(expired.body).to.deep.equal({ message: `The token expired at ${new Date(expiresAt * 1000).toISOString()}: create a new one` });
    expect(expired.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token", error_description="The token has expired"');
    // With a wrong secret the answer is the one for any unknown token: nothing about the token leaks.
    const wrongSecret = `tp_${id}_${'x'.repeat(43)}`; // the same id, a well-formed secret that is not its own
    expect((await list(wrongSecret)).body).to.deep.equal({ message: 'Authentication required: send Authorization: Bearer <token>' });
    // Writes are refused the same way.
    const write = await server.request('PUT', '/api/v2/trails/acme/payments', { token, form: { data_json: JSON.stringify({ name: 'build-late' }) } });
    expect(write.status).to.equal(401);
    expect((await server.request('GET', '/api/v2/trails/acme/payments/build-late')).status).to.equal(404);
  });

  it('creates no token that could never work: an expiry in the past or not a number is refused', async () => {
    for (const expiresAt of [Date.now() / 1000 - 1, Number.NaN, Number.POSITIVE_INFINITY]) {
      let refused: unknown;
      await createToken(server.store, { org: 'initech', expiresAt }).catch((error: unknown) => (refused = error));
      expect(refused, String(expiresAt)).to.be.instanceOf(RangeError);
    }
    expect(await server.store.findOrganization('initech'), 'nothing created').to.equal(undefined);
  });

  it('stores tokens only as hashes: no secret appears in the database file', async function () {
    if (server.backend !== 'sqlite') this.skip();
    const files = [server.file, `${server.file}-wal`].filter(existsSync).map((f) => readFileSync(f));
    const database = Buffer.concat(files);
    for (const token of [server.token, server.readToken, server.otherToken, revoked]) {
      const [, id, secret] = /^tp_([A-Za-z0-9]{16})_(.+)$/.exec(token)!;
      // the scan sees what is stored: the id is there in clear, and the secret's SHA-256
      expect(database.includes(Buffer.from(id!)), 'id present').to.equal(true);
      expect(database.includes(Buffer.from(createHash('sha256').update(secret!).digest('hex'))), 'hash present').to.equal(true);
      expect(database.includes(Buffer.from(secret!)), 'secret absent').to.equal(false);
      expect(database.includes(Buffer.from(token)), 'token absent').to.equal(false);
      expect(database.includes(Buffer.from(secret!, 'base64url')), 'secret bytes absent').to.equal(false);
    }
  });
});
