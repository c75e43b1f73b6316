/**
 * What the robustness storms (robustness.test.ts, robustness-contract.test.ts) share: every
 * operation, requests built for them, the check that an answer is a 4xx with the JSON error shape,
 * and the evidence stored before a storm, which must come through it unchanged.
 */
import { expect } from 'chai';
import type { Operation } from '@trailproof/schema';
import { defaultPlugins } from '@trailproof/server';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { databaseFingerprint, sqliteIntegrity } from './db-fingerprint.ts';
import type { RawAnswer, RawRequest } from './raw-http.ts';

/** Every operation the server answers (those of the default plugins). */
export const operations: Operation[] = defaultPlugins.map((p) => p.operation);
/** Path parameters that name what storeEvidence stores, for the parts of a request not at fault. */
const validParams: Record<string, string> = { org: 'acme', flow_name: 'app', trail_name: 't1', env_name: 'production', approval_number: '1' };

/** The request line and headers of `operation` with the given path parameters and query. */
export function build(
  operation: Operation,
  params: Record<string, string>,
  query: string,
  body?: { body: Buffer; type: string },
  why = '',
  headers: Record<string, string> = {},
): RawRequest {
  return {
    method: operation.method,
    path: '/api/v2' + operation.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? validParams[name] ?? 'x1') + (query ? `?${query}` : ''),
    headers: { ...(body ? { 'content-type': body.type } : {}), ...headers },
    ...(body ? { body: body.body } : {}),
    why,
  };
}

/** The answer is a 4xx with the JSON error shape; returns the parsed body. */
export function expectClientError(res: RawAnswer, context: string) {
  expect(res.status, context).to.be.within(400, 499);
  expect(res.type, context).to.contain('application/json');
  const body = JSON.parse(res.body) as { message?: unknown; errors?: Record<string, unknown> };
  expect(body.message, context).to.be.a('string');
  if (body.errors !== undefined) for (const value of Object.values(body.errors)) expect(value, context).to.be.a('string');
  return body;
}

/** Where `server` stores, as databaseFingerprint reads it. */
const location = (server: TestServer) => ({ file: server.file, ...(server.backend === 'postgres' ? { url: server.location, schema: server.schema } : {}) });

/** Stores a trail, a junit attestation with its attachment and an environment, signs the log's checkpoint, and returns the database's fingerprint. */
export async function storeEvidence(server: TestServer) {
  expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 't1' }) } })).status).to.equal(201);
  expect(
    (
      await server.request('POST', '/api/v2/attestations/acme/app/trail/t1/junit', {
        form: {
          data_json: JSON.stringify({ attestation_name: 'unit', junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 1 }] }),
          attachment_file: { content: 'evidence' },
        },
      })
    ).status,
  ).to.equal(201);
  expect((await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'production', type: 'K8S' } })).status).to.equal(201);
  // The log's checkpoint of these writes is signed now, not by its timer in the middle of the storm.
  await server.store.makeCheckpoints?.();
  return databaseFingerprint(location(server));
}

/** Still alive and serving, the file sound, nothing stored changed since `stored` (storeEvidence's fingerprint). */
export async function expectUnchangedSince(server: TestServer, stored: Awaited<ReturnType<typeof storeEvidence>>) {
  expect((await server.request('GET', '/api/v2/environments/acme')).status).to.equal(200);
  if (server.backend === 'sqlite') expect(sqliteIntegrity(server.file)).to.equal('ok');
  expect(await databaseFingerprint(location(server))).to.deep.equal(stored);
}

/**
 * Registers, in the calling `describe`, a test server started before its tests with evidence
 * stored in it (handed to `onStart`) and closed after them. Returns the check that the server is
 * still alive and serving, its file sound and that evidence unchanged.
 */
export function stormServer(onStart: (server: TestServer) => void): () => Promise<void> {
  let server: TestServer;
  let stored: Awaited<ReturnType<typeof storeEvidence>>;
  before(async () => {
    // The storm sends hundreds of refused tokens from one address: with the limit on failed token
    // checks, the requests after them would be answered 429 before the checks the storm is for.
    server = await startTestServer({ server: { failedTokenChecksPerMinute: 1_000_000 } });
    // Evidence stored before the storm, which must come through unchanged.
    stored = await storeEvidence(server);
    onStart(server);
  });
  after(() => server.close());
  return () => expectUnchangedSince(server, stored);
}
