// @database
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { getApproval, listApprovals, requestApproval, reviewApproval } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const commitA = 'a'.repeat(40);
const commitB = 'b'.repeat(40);
const review = (state: 'APPROVED' | 'UNAPPROVED', by = 'bob') => ({
  state,
  approved_by: by,
  comment: `${by} says ${state}`,
  approval_url: 'https://review.example.com/1',
});

describe('writing approvals: POST /approvals/{org}/{flow_name}, PUT /approvals/{org}/{flow_name}/{approval_number}', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
    // The flow, and a trail on commit A that attested the artifact as `backend`.
    await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 'build-1', git_commit_info: { sha1: commitA } }) } });
    await server.request('POST', '/api/v2/attestations/acme/app/trail/build-1/junit', {
      form: { data_json: JSON.stringify({ attestation_name: 'unit', artifact_fingerprint: sha('v1'), target_artifacts: ['backend'], junit_results: [] }) },
    });
  });
  afterEach(() => server.close());

  const request = (json: unknown) => server.request('POST', '/api/v2/approvals/acme/app', { json });
  const addReview = (number: number | string, json: unknown) => server.request('PUT', `/api/v2/approvals/acme/app/${number}`, { json });

  it('numbers approvals per flow, derives base_artifact and artifact_name, and sets the state from the reviews', async () => {
    const pending = await request({
      artifact_fingerprint: sha('v1'),
      description: 'first',
      src_commit_list: [commitA, commitB],
      environment: 'production',
      user_data: { ticket: 'T-1' },
    });
    expect(pending.status).to.equal(201);
    assertMatchesContract(requestApproval, 201, pending.body);
    expect(pending.body).to.deep.include({
      release_number: 1,
      base_artifact: '',
      artifact_name: 'backend',
      target_artifact: sha('v1'),
      description: 'first',
      state: 'PENDING',
      approvals: [],
      environment: 'production',
      user_data: { ticket: 'T-1' },
    });
    expect(pending.body.src_commit_list).to.deep.equal([
      { commit_sha: commitA, artifact_fingerprints: [sha('v1')] },
      { commit_sha: commitB, artifact_fingerprints: [] },
    ]);
    expect(pending.body.created_at).to.equal(pending.body.last_modified_at);

    const approved = await request({ artifact_fingerprint: sha('v2'), description: 'second', src_commit_list: [commitB], approvals: [review('APPROVED')] });
    expect(approved.body).to.deep.include({ release_number: 2, base_artifact: sha('v1'), artifact_name: '', state: 'APPROVED', environment: null });
    expect(approved.body).to.not.have.property('user_data');
    expect(approved.body.approvals).to.have.length(1);
    expect(approved.body.approvals[0]).to.deep.include({
      state: 'APPROVED',
      approved_by: 'bob',
      comment: 'bob says APPROVED',
      approval_url: 'https://review.example.com/1',
    });

    const vetoed = await request({
      artifact_fingerprint: sha('v3'),
      description: 'third',
      src_commit_list: [],
      approvals: [review('APPROVED'), review('UNAPPROVED', 'eve')],
    });
    expect(vetoed.body).to.deep.include({ release_number: 3, base_artifact: sha('v2'), state: 'UNAPPROVED' });

    // Another flow numbers from 1 again.
    await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'other' } });
    expect(
      (await server.request('POST', '/api/v2/approvals/acme/other', { json: { artifact_fingerprint: sha('x'), description: '', src_commit_list: [] } })).body
        .release_number,
    ).to.equal(1);

    const list = await server.request('GET', '/api/v2/approvals/acme/app');
    assertMatchesContract(listApprovals, 200, list.body);
    expect(list.body.map((a: { release_number: number; base_artifact: string; state: string }) => [a.release_number, a.base_artifact, a.state])).to.deep.equal([
      [3, sha('v2'), 'UNAPPROVED'],
      [2, sha('v1'), 'APPROVED'],
      [1, '', 'PENDING'],
    ]);
    expect(list.body[2].src_commit_list).to.deep.equal([commitA, commitB]);
  });

  it('adds reviews that move the state: PENDING → APPROVED → UNAPPROVED, which stays', async () => {
    await request({ artifact_fingerprint: sha('v1'), description: 'first', src_commit_list: [commitA] });
    const approved = await addReview(1, review('APPROVED'));
    expect(approved.status).to.equal(200);
    assertMatchesContract(reviewApproval, 200, approved.body);
    expect(approved.body).to.deep.include({ release_number: 1, state: 'APPROVED' });
    expect(approved.body.last_modified_at).to.be.at.least(approved.body.created_at);

    const unapproved = await addReview(-1, { state: 'UNAPPROVED', approved_by: 'eve' });
    expect(unapproved.body.state).to.equal('UNAPPROVED');
    expect(unapproved.body.approvals.map((r: { approved_by: string; comment: string }) => [r.approved_by, r.comment])).to.deep.equal([
      ['bob', 'bob says APPROVED'],
      ['eve', ''],
    ]);
    expect((await addReview(1, review('APPROVED', 'carol'))).body.state).to.equal('UNAPPROVED');

    const fetched = await server.request('GET', '/api/v2/approvals/acme/app/1');
    assertMatchesContract(getApproval, 200, fetched.body);
    expect(fetched.body.approvals).to.have.length(3);
    expect(fetched.body.state).to.equal('UNAPPROVED');
  });

  it('validates input and answers 404 for unknown flows and approvals', async () => {
    const bad = await request({ artifact_fingerprint: 'nope', src_commit_list: ['xyz'], approvals: [{ state: 'MAYBE' }], extra: true });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors).to.include.keys([
      'artifact_fingerprint',
      'description',
      'src_commit_list.0',
      'approvals.0.state',
      'approvals.0.approved_by',
      'extra',
    ]);
    expect(
      (await server.request('POST', '/api/v2/approvals/acme/nope', { json: { artifact_fingerprint: sha('v1'), description: '', src_commit_list: [] } })).status,
    ).to.equal(404);
    const missing = await addReview(7, review('APPROVED'));
    expect(missing.status).to.equal(404);
    assertMatchesContract(reviewApproval, 404, missing.body);
    expect((await addReview(0, review('APPROVED'))).status).to.equal(400);
    expect((await server.request('PUT', '/api/v2/approvals/acme/app/1', { json: review('APPROVED'), token: server.readToken })).status).to.equal(403);
  });
});
