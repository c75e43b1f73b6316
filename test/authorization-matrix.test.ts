// @database
/**
 * The authorization matrix: every route served by default × every kind of caller. Expected:
 * the organisation's read-write token passes auth everywhere; a read-only token passes on
 * reads and gets 403 on writes; another organisation's token gets the same 403 on every path
 * of this one, whether or not anything exists there; revoked, unknown and malformed tokens
 * get 401. No answer to another organisation carries this organisation's data.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { Operation } from '@trailproof/schema';
import { defaultPlugins } from '@trailproof/server';
import { createToken } from '@trailproof/server';
import type { TestServer } from '@trailproof/server/testing';
import { builtTesting } from './support/built-testing.ts';

/** Names that exist in acme (another organisation may use the same names). */
const name = 'shared-name';
/** Data only acme holds: it must never appear in an answer to another organisation. */
const marker = 'acme-confidential-marker';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const commit = createHash('sha1').update('commit').digest('hex');
const operations: Operation[] = defaultPlugins.map((p) => p.operation);
const writes = operations.filter((o) => o.access === 'write');

/** Path parameters naming resources that exist in acme (and, with `missing`, ones that do not). */
function pathFor(operation: Operation, org: string, missing = false): string {
  const values: Record<string, string> = missing
    ? {
        org,
        flow_name: 'no-such-flow',
        trail_name: 'no-such-trail',
        env_name: 'no-such-env',
        approval_number: '99',
        snapshot_index: '99',
        snapshot_expression: '99',
        attestation_id: '999999',
        attestation_name: 'no-such-attestation',
        policy_name: 'no-such-policy',
        identifier: 'no-such-control',
      }
    : {
        org,
        flow_name: name,
        trail_name: name,
        env_name: name,
        approval_number: '1',
        snapshot_index: '1',
        snapshot_expression: '1',
        attestation_id: '1',
        fingerprint: sha(marker),
        commit_sha: commit,
        search_value: sha(marker),
        attestation_name: 'unit',
        policy_name: name,
        identifier: name,
      };
  return '/api/v2' + operation.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? 'x') + (requiredQueries[operation.id] ?? '');
}

/** The query an operation cannot go without (the log's proofs: a leaf and a size the seeded log has). */
const requiredQueries: Record<string, string> = {
  getLogInclusionProof: '?index=0&tree_size=1',
  getLogConsistencyProof: '?from=0&to=1',
  diffSnapshots: `?snappish1=${name}&snappish2=${name}`,
  // getAttestation's `?attestation_id=`: the seeded attestation's id, read back in `before`.
};

function bodyFor(operation: Operation) {
  if (!operation.body) return {};
  if (operation.body.kind === 'json') return { json: { name: 'x' } };
  return { form: { data_json: JSON.stringify({ name: 'x' }) } };
}

describe('authorization matrix over every route', function () {
  this.timeout(120_000);
  let server: TestServer;
  let revoked = '';

  before(async () => {
    // Every route is sent every kind of refused token: far more failures than one address may
    // make a minute (test/hostile/failed-auth.test.ts tests that limit).
    server = await (await builtTesting()).startTestServer({ server: { failedTokenChecksPerMinute: 100_000 } });
    const seed = async (method: string, path: string, options: Parameters<TestServer['request']>[2]) => {
      const res = await server.request(method, path, options);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.be.within(200, 201);
    };
    await seed('PUT', `/api/v2/trails/acme/${name}`, { form: { data_json: JSON.stringify({ name, description: marker }) } });
    await seed('POST', `/api/v2/attestations/acme/${name}/trail/${name}/junit`, {
      form: {
        data_json: JSON.stringify({ attestation_name: 'unit', artifact_fingerprint: sha(marker), junit_results: [] }),
        attachment_file: { content: marker },
      },
    });
    await seed('PUT', '/api/v2/environments/acme', { json: { name, type: 'server', description: marker } });
    await seed('PUT', `/api/v2/environments/acme/${name}/report/server`, {
      json: { artifacts: [{ digests: { [marker]: sha(marker) }, creationTimestamp: 1_763_800_000 }] },
    });
    await seed('POST', `/api/v2/approvals/acme/${name}`, { json: { artifact_fingerprint: sha(marker), description: marker, src_commit_list: [] } });
    // An artifact of the trail, for the artifact reads.
    await seed('POST', `/api/v2/artifacts/acme/${name}`, {
      json: {
        fingerprint: sha(marker),
        filename: marker,
        git_commit: commit,
        build_url: 'https://ci.example/1',
        commit_url: 'https://git.example/1',
        template_reference_name: 'app',
        trail_name: name,
      },
    });
    // A policy, for the policy reads.
    await seed('PUT', '/api/v2/policies/acme', {
      form: {
        payload: JSON.stringify({ name, description: marker, comment: '', type: 'env' }),
        policy_file: {
          content: '_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n  provenance:\n    required: true\n',
          name: 'policy.yml',
        },
      },
    });
    // A control, for the control read.
    await seed('POST', '/api/v2/controls/acme', { json: { identifier: name, name: marker } });
    const trail = await server.request('GET', `/api/v2/trails/acme/${name}/${name}`, {});
    requiredQueries.getAttestation = `?attestation_id=${trail.body.attestations[0].attestation_id}`;
    const extra = await createToken(server.store, { org: 'acme' });
    await server.store.revokeToken(extra.id, Date.now() / 1000);
    revoked = extra.token;
    // The log's checkpoint of these writes, now rather than by the server's timer a moment later:
    // the checkpoint and export routes below need one, and a loaded machine may reach them first.
    await server.store.makeCheckpoints?.();
  });
  after(() => server.close());

  it('covers every operation', () => {
    expect(operations.length).to.be.at.least(27);
    expect(writes.length).to.be.at.least(10);
  });

  for (const operation of operations) {
    describe(`${operation.method} ${operation.path}`, () => {
      it("another organisation's token: 403, the same answer whether or not the resource exists, nothing leaked", async () => {
        const existing = await server.request(operation.method, pathFor(operation, 'acme'), { token: server.otherToken, ...bodyFor(operation) });
        const missing = await server.request(operation.method, pathFor(operation, 'acme', true), { token: server.otherToken, ...bodyFor(operation) });
        expect(existing.status).to.equal(403);
        expect(missing.status).to.equal(403);
        expect(existing.body).to.deep.equal(missing.body);
        expect(new TextDecoder().decode(existing.bytes)).not.to.contain(marker);
        expect(new TextDecoder().decode(existing.bytes)).not.to.contain(name);
      });

      it('no token, a malformed header, an unknown token and a revoked token: 401', async () => {
        for (const [label, token, headers] of [
          ['none', null, {}],
          ['basic', null, { authorization: 'Basic YWNtZTpwYXNz' }],
          ['empty bearer', null, { authorization: 'Bearer ' }],
          ['malformed', 'tp_not-a-token', {}],
          ['unknown', `tp_${'A'.repeat(16)}_${'B'.repeat(43)}`, {}],
          ['revoked', revoked, {}],
        ] as const) {
          const res = await server.request(operation.method, pathFor(operation, 'acme'), { token, headers, ...bodyFor(operation) });
          expect(res.status, label).to.equal(401);
          expect(res.body.message, label).to.be.a('string');
          expect(new TextDecoder().decode(res.bytes)).not.to.contain(marker);
        }
      });

      it(operation.access === 'write' ? 'read-only token: 403' : 'read-only token: allowed', async () => {
        const res = await server.request(operation.method, pathFor(operation, 'acme'), { token: server.readToken, ...bodyFor(operation) });
        if (operation.access === 'write') {
          expect(res.status).to.equal(403);
          expect(res.body.message).to.match(/read-only/);
        } else {
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
        }
      });

      it("the organisation's read-write token passes authorization", async () => {
        const res = await server.request(operation.method, pathFor(operation, 'acme'), bodyFor(operation));
        expect(res.status, JSON.stringify(res.body)).not.to.be.oneOf([401, 403]);
      });
    });
  }

  it("another organisation's own lists and documents, under the same names, carry none of this organisation's data", async () => {
    for (const operation of operations.filter((o) => o.method === 'GET')) {
      const path = pathFor(operation, 'globex');
      const res = await server.request('GET', path, { token: server.otherToken });
      expect(res.status, operation.id).to.be.oneOf([200, 404]);
      // A 404 may name the digest it was asked for ("No matches for '<value>'."): the request's own value is not acme's data.
      const asked = res.status === 404 && path.includes(sha(marker));
      const raw = new TextDecoder().decode(res.bytes);
      const text = asked ? raw.replaceAll(`'${sha(marker)}'`, "''") : raw;
      expect(text, operation.id).not.to.contain(marker);
      expect(text, operation.id).not.to.contain(sha(marker));
    }
  });
});
