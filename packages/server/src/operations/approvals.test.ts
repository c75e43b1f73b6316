// @database
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { getApproval, listApprovals } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';

const fp = (text: string) => createHash('sha256').update(text).digest('hex');
const C1 = '1111111111111111111111111111111111111111';
const C2 = '2222222222222222222222222222222222222222';
const C3 = '3333333333333333333333333333333333333333';
const t0 = 1_763_000_000;
type Approval = { release_number: number; description: string; state: string; src_commit_list: unknown[]; [key: string]: unknown };

describe('approvals: GET /approvals/{org}/{flow_name}[/{approval_number}]', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    const org = Number((await server.store.findOrganization('acme'))!.id);
    const flow = await server.store.ensureFlow(org, 'payments', t0);
    const other = await server.store.ensureFlow(org, 'other-flow', t0);
    const insert = (flowId: number, n: number, o: Partial<Parameters<TestServer['store']['insertApproval']>[0]> = {}) =>
      server.store.insertApproval({
        flowId,
        targetArtifact: fp(`release-${n}`),
        baseArtifact: n > 1 ? fp(`release-${n - 1}`) : '',
        artifactName: 'api',
        description: `Release ${n}`,
        environment: null,
        srcCommitList: [],
        userData: null,
        state: 'PENDING',
        reviews: [],
        createdBy: null,
        at: t0 + n * 100,
        ...o,
      });
    expect(await insert(flow.id, 1, { srcCommitList: [C2, C1], environment: 'production', userData: { ticket: 'CHG-1' } })).to.equal(1);
    expect(
      await insert(flow.id, 2, {
        srcCommitList: [C3],
        state: 'APPROVED',
        reviews: [{ state: 'APPROVED', comment: 'ship it', approved_by: 'grace', approval_url: 'https://example.com/r/2', timestamp: t0 + 250 }],
      }),
    ).to.equal(2);
    expect(
      await insert(flow.id, 3, {
        reviews: [
          { state: 'APPROVED', comment: '', approved_by: 'ada', approval_url: '', timestamp: t0 + 310 },
          { state: 'UNAPPROVED', comment: 'tests fail', approved_by: 'grace', approval_url: '', timestamp: t0 + 320 },
        ],
      }),
    ).to.equal(3);
    expect(await insert(other.id, 1, { description: 'Other flow' })).to.equal(1);

    // Evidence linking commits to artifacts: trails on C1 (two flows) attested with fingerprints; one on C3 without.
    const begin = (flowName: string, trail: string, sha1: string, token?: string, org = 'acme') =>
      server.request('PUT', `/api/v2/trails/${org}/${flowName}`, {
        token,
        form: { data_json: JSON.stringify({ name: trail, git_commit_info: { sha1, branch: 'main' } }) },
      });
    const attest = (flowName: string, trail: string, fingerprint: string | null, token?: string, org = 'acme') =>
      server.request('POST', `/api/v2/attestations/${org}/${flowName}/trail/${trail}/junit`, {
        token,
        form: { data_json: JSON.stringify({ attestation_name: 'unit', junit_results: [], ...(fingerprint ? { artifact_fingerprint: fingerprint } : {}) }) },
      });
    for (const res of [
      await begin('payments', 'build-1', C1),
      await attest('payments', 'build-1', fp('api:1')),
      await attest('payments', 'build-1', fp('api:1')),
      await begin('worker', 'build-1', C1),
      await attest('worker', 'build-1', fp('worker:1')),
      await begin('payments', 'build-3', C3),
      await attest('payments', 'build-3', null),
      await begin('payments', 'build-x', C2, server.otherToken, 'globex'),
      await attest('payments', 'build-x', fp('globex'), server.otherToken, 'globex'),
    ])
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
  });
  after(() => server.close());

  const get = (path: string, token?: string) => server.request('GET', `/api/v2/approvals/acme/${path}`, { token });

  describe('list', () => {
    it('answers every approval of the flow, newest first, in the list shape (contract)', async () => {
      const res = await get('payments');
      expect(res.status).to.equal(200);
      assertMatchesContract(listApprovals, 200, res.body);
      const approvals = res.body as Approval[];
      expect(approvals.map((a) => [a.release_number, a.description, a.state])).to.deep.equal([
        [3, 'Release 3', 'UNAPPROVED'],
        [2, 'Release 2', 'APPROVED'],
        [1, 'Release 1', 'PENDING'],
      ]);
      expect(approvals[2]).to.deep.equal({
        release_number: 1,
        base_artifact: '',
        artifact_name: 'api',
        target_artifact: fp('release-1'),
        description: 'Release 1',
        src_commit_list: [C2, C1],
        created_at: t0 + 100,
        created_by: null,
        log_index: 0,
        last_modified_at: t0 + 100,
        state: 'PENDING',
        approvals: [],
        environment: 'production',
        user_data: { ticket: 'CHG-1' },
      });
      expect(approvals[1]!.approvals).to.deep.equal([
        {
          state: 'APPROVED',
          comment: 'ship it',
          approved_by: 'grace',
          approval_url: 'https://example.com/r/2',
          timestamp: t0 + 250,
          created_by: null,
          log_index: 2,
        },
      ]);
      expect(approvals[0]).to.include({ last_modified_at: t0 + 320, base_artifact: fp('release-2'), environment: null });
      expect(approvals[0]).not.to.have.property('user_data');
    });

    it('paginates with page and per_page', async () => {
      const numbers = async (query: string) => {
        const res = await get(`payments${query}`);
        expect(res.status, query).to.equal(200);
        return (res.body as Approval[]).map((a) => a.release_number);
      };
      expect(await numbers('?per_page=2')).to.deep.equal([3, 2]);
      expect(await numbers('?per_page=2&page=2')).to.deep.equal([1]);
      expect(await numbers('?per_page=2&page=3')).to.deep.equal([]);
      expect(await numbers('?per_page=1&page=2')).to.deep.equal([2]);
      expect(await numbers('?per_page=100')).to.deep.equal([3, 2, 1]);
      for (const [query, field] of [
        ['?per_page=0', 'query.per_page'],
        ['?per_page=101', 'query.per_page'],
        ['?page=0', 'query.page'],
        ['?page=two', 'query.page'],
      ]) {
        const res = await get(`payments${query}`);
        expect(res.status, query).to.equal(400);
        assertMatchesContract(listApprovals, 400, res.body);
        expect(res.body.errors, query).to.have.keys([field]);
      }
    });

    it("answers only the flow's own approvals, and 404 for an unknown flow", async () => {
      const other = await get('other-flow');
      expect((other.body as Approval[]).map((a) => a.description)).to.deep.equal(['Other flow']);
      const missing = await get('no-such-flow');
      expect(missing.status).to.equal(404);
      assertMatchesContract(listApprovals, 404, missing.body);
      expect(missing.body.message).to.contain('no-such-flow');
      // a flow of another organisation under the same name is not acme's
      expect((await server.request('GET', '/api/v2/approvals/globex/payments', { token: server.otherToken })).body).to.deep.equal([]);
    });
  });

  describe('get', () => {
    it('answers one approval by number in the get shape: commits with the artifacts attested from them (contract)', async () => {
      const res = await get('payments/1');
      expect(res.status).to.equal(200);
      assertMatchesContract(getApproval, 200, res.body);
      expect(res.body).to.deep.equal({
        release_number: 1,
        base_artifact: '',
        artifact_name: 'api',
        target_artifact: fp('release-1'),
        description: 'Release 1',
        src_commit_list: [
          { commit_sha: C2, artifact_fingerprints: [] },
          { commit_sha: C1, artifact_fingerprints: [fp('api:1'), fp('worker:1')].sort() },
        ],
        created_at: t0 + 100,
        created_by: null,
        log_index: 0,
        last_modified_at: t0 + 100,
        state: 'PENDING',
        approvals: [],
        environment: 'production',
        user_data: { ticket: 'CHG-1' },
      });
      const two = await get('payments/2');
      assertMatchesContract(getApproval, 200, two.body);
      expect(two.body.src_commit_list).to.deep.equal([{ commit_sha: C3, artifact_fingerprints: [] }]);
      expect(two.body.state).to.equal('APPROVED');
    });

    it('counts back from the latest with negative numbers', async () => {
      const numberOf = async (n: string) => {
        const res = await get(`payments/${n}`);
        expect(res.status, n).to.equal(200);
        return res.body.release_number as number;
      };
      expect(await numberOf('-1')).to.equal(3);
      expect(await numberOf('-2')).to.equal(2);
      expect(await numberOf('-3')).to.equal(1);
      expect(await numberOf('3')).to.equal(3);
      expect((await get('other-flow/-1')).body.description).to.equal('Other flow');
    });

    it('answers 404 past either end, for an unknown flow, and 400 for 0 and non-integers', async () => {
      for (const path of ['payments/4', 'payments/-4', 'payments/1000', 'other-flow/2', 'no-such-flow/1', 'no-such-flow/-1']) {
        const res = await get(path);
        expect(res.status, path).to.equal(404);
        assertMatchesContract(getApproval, 404, res.body);
      }
      for (const n of ['0', '1.5', 'abc', '-0.5', '1e3x', '99999999999']) {
        const res = await get(`payments/${n}`);
        expect(res.status, n).to.equal(400);
        expect(res.body.errors, n).to.have.keys(['path.approval_number']);
      }
    });
  });
});
