// @database
/**
 * The approval and deployment requests of the Kosli CLI releases that still had those commands,
 * byte for byte, and its reading of the answers. Followed: cmd/kosli/reportApproval.go (without
 * `--oldest-commit` it first asks GET /approvals/{org}/{flow}/artifact-commit/{env} and reads
 * `commit_sha` as a string when not null; then POSTs `ApprovalPayload`: `user_data` null when no
 * file was given, `environment` left out when empty, one review with `approval_url` "undefined";
 * Basic authorization, `RequestParams.Password`), cmd/kosli/requestApproval.go (no reviews),
 * cmd/kosli/getApproval.go and listApprovals.go (release_number, base_artifact, artifact_name and
 * state read by type assertion; reviews and src_commit_list as lists), and list deployments
 * (the figures as Go ints).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { cliRetries, cliSucceeds, goDecodeProblems, sendAsCli, type CliCall, type GoType } from './go-wire.ts';

const fingerprint = (name: string) => createHash('sha256').update(name).digest('hex');
const commit = (n: number) => createHash('sha1').update(`commit ${n}`).digest('hex');

const approvalAsRead: GoType = {
  release_number: 'int',
  base_artifact: 'string',
  artifact_name: 'string',
  state: 'string',
  last_modified_at: 'float64',
  approvals: [{ approved_by: 'string?', timestamp: 'float64', state: 'string' }],
  src_commit_list: [{ commit_sha: 'string', artifact_fingerprints: ['string'] }],
};
const approvalListItemAsRead: GoType = {
  release_number: 'int',
  artifact_name: 'string',
  state: 'string',
  base_artifact: 'string',
  last_modified_at: 'float64',
};
const deploymentsAsRead: GoType = {
  page: 'int',
  per_page: 'int',
  total_pages: 'int',
  total_count: 'int',
  deployments: [{ fingerprint: 'string', deployed_at: 'float64', artifact_name: 'string', env_name: 'string', snapshot_index: 'int' }],
};

describe('Kosli CLI wire format: approvals (with the artifact-commit helper) and deployments', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    // Three builds of the shop, each its own trail and commit, each attesting its artifact.
    for (const n of [1, 2, 3]) {
      await cli(
        {
          method: 'PUT',
          path: '/api/v2/trails/acme/shop',
          form: [
            {
              type: 'field',
              name: 'data_json',
              content: { name: `build-${n}`, git_commit_info: { sha1: commit(n), message: '', author: 'ci', timestamp: 1_763_000_000 + n, branch: 'main' } },
            },
          ],
        },
        201,
      );
      await cli(
        {
          method: 'POST',
          path: `/api/v2/attestations/acme/shop/trail/build-${n}/generic`,
          form: [
            { type: 'field', name: 'data_json', content: { artifact_fingerprint: fingerprint(`shop:${n}`), attestation_name: 'build', is_compliant: true } },
          ],
        },
        201,
      );
    }
    await cli({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'prod', type: 'K8S', description: '', require_provenance: false } }, 201);
    await cli({ method: 'PUT', path: '/api/v2/environments/acme', payload: { name: 'staging', type: 'K8S', description: '', require_provenance: false } }, 201);
  });
  after(() => server.close());

  async function cli(call: Omit<CliCall, 'token'>, expected: number) {
    const answer = await sendAsCli(server.url, { token: server.token, auth: 'basic', ...call });
    expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.equal(expected);
    expect(cliSucceeds(answer.status)).to.equal(true);
    return answer;
  }
  const lastApprovedCommit = async (env: string) => {
    const answer = await cli({ method: 'GET', path: `/api/v2/approvals/acme/shop/artifact-commit/${env}` }, 200);
    expect(goDecodeProblems(answer.json, { commit_sha: 'string?' })).to.deep.equal([]);
    expect(Object.keys(answer.json)).to.deep.equal(['commit_sha']);
    return answer.json.commit_sha as string | null;
  };
  /** `kosli report approval` (one review) or `kosli request approval` (none) for an environment. */
  const approve = (n: number, env: string | undefined, reviewed = true, oldest?: string) => {
    const payload: Record<string, unknown> = { artifact_fingerprint: fingerprint(`shop:${n}`) };
    if (env) payload.environment = env;
    Object.assign(payload, { description: `Release ${n}`, src_commit_list: [commit(n)] });
    if (oldest) payload.oldest_commit = oldest;
    payload.approvals = reviewed ? [{ state: 'APPROVED', comment: `Release ${n}`, approved_by: 'External', approval_url: 'undefined' }] : [];
    payload.user_data = null;
    return cli({ method: 'POST', path: '/api/v2/approvals/acme/shop', payload }, 201);
  };
  const running = (env: string, ...builds: number[]) =>
    cli(
      {
        method: 'PUT',
        path: `/api/v2/environments/acme/${env}/report/K8S`,
        payload: {
          artifacts: builds.map((n) => ({
            podName: `shop-${n}`,
            namespace: 'shop',
            digests: { [`shop:${n}`]: fingerprint(`shop:${n}`) },
            creationTimestamp: 1_763_001_000 + n,
            owners: null,
          })),
        },
      },
      201,
    );

  it('artifact-commit: null before anything approved runs; then the commit of the approved artifact running there', async () => {
    expect(await lastApprovedCommit('prod')).to.equal(null);
    await approve(1, 'prod');
    // Approved, but not running yet.
    expect(await lastApprovedCommit('prod')).to.equal(null);
    await running('prod', 1);
    expect(await lastApprovedCommit('prod')).to.equal(commit(1));
    // An approval for all environments counts too; one still pending does not; another environment's does not.
    await approve(2, undefined, true, commit(1));
    await approve(3, 'prod', false);
    await approve(3, 'staging');
    await running('prod', 2, 3);
    expect(await lastApprovedCommit('prod')).to.equal(commit(2));
    await running('staging', 3);
    expect(await lastApprovedCommit('staging')).to.equal(commit(3));
  });

  it('artifact-commit for an unknown flow or environment: 404 naming it (never a status the CLI retries)', async () => {
    for (const [path, name] of [
      ['/api/v2/approvals/acme/nope/artifact-commit/prod', "'nope'"],
      ['/api/v2/approvals/acme/shop/artifact-commit/nowhere', "'nowhere'"],
    ] as const) {
      const answer = await sendAsCli(server.url, { method: 'GET', path, token: server.token, auth: 'basic' });
      expect(answer.status, path).to.equal(404);
      expect(cliRetries(answer.status)).to.equal(false);
      expect(answer.json.message).to.contain(name);
    }
  });

  it('get approval and list approvals: every field the CLI reads has its Go type', async () => {
    const latest = await cli({ method: 'GET', path: '/api/v2/approvals/acme/shop/-1' }, 200);
    expect(goDecodeProblems(latest.json, approvalAsRead)).to.deep.equal([]);
    const first = await cli({ method: 'GET', path: '/api/v2/approvals/acme/shop/1' }, 200);
    expect(goDecodeProblems(first.json, approvalAsRead)).to.deep.equal([]);
    expect(first.json.src_commit_list).to.deep.equal([{ commit_sha: commit(1), artifact_fingerprints: [fingerprint('shop:1')] }]);
    const list = await cli({ method: 'GET', path: '/api/v2/approvals/acme/shop?page=1&per_page=15' }, 200);
    expect(goDecodeProblems(list.json, [approvalListItemAsRead])).to.deep.equal([]);
    expect(list.json).to.have.length(4);
  });

  it('an unknown approval number is a 404 naming it', async () => {
    const answer = await sendAsCli(server.url, { method: 'GET', path: '/api/v2/approvals/acme/shop/99', token: server.token });
    expect(answer.status).to.equal(404);
    expect(answer.json.message).to.contain('99');
  });

  it('list deployments: the figures are Go ints and every deployment decodes', async () => {
    const answer = await cli({ method: 'GET', path: '/api/v2/deployments/acme?page=1&per_page=15' }, 200);
    expect(goDecodeProblems(answer.json, deploymentsAsRead)).to.deep.equal([]);
    expect(answer.json.total_count).to.be.greaterThan(0);
  });
});
