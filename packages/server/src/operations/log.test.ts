// @database
/**
 * The transparency log's API (issue 34) on SQLite or PostgreSQL: proofs served over HTTP verify
 * with the offline verifiers against the served checkpoint and key; out-of-range values are 400s
 * that name their field; read tokens read the log, another organisation's tokens do not.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import {
  getApproval,
  getLogCheckpoint,
  getLogConsistencyProof,
  getLogInclusionProof,
  getLogKey,
  getSnapshot,
  getTrail,
  listApprovals,
  listLogCheckpoints,
} from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';
import { decodeProof, verificationOutcome, verifyCheckpointConsistency, verifyLeafInclusion } from '../transparency/index.ts';

describe('transparency log API: /log/{org}/key, checkpoint(s), proof/inclusion, proof/consistency', () => {
  let server: TestServer;
  beforeEach(async () => (server = await startTestServer()));
  afterEach(() => server.close());

  const begin = (name: string) => server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name }) } });
  const attest = (trail: string, name: string) =>
    server.request('POST', `/api/v2/attestations/acme/app/trail/${trail}/generic`, {
      form: { data_json: JSON.stringify({ attestation_name: name, is_compliant: true }) },
    });
  const get = (path: string, token = server.readToken) => server.request('GET', `/api/v2/log/acme${path}`, { token });

  async function checkpoint(): Promise<string> {
    await server.store.makeCheckpoints!();
    const response = await get('/checkpoint');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    return Buffer.from(response.bytes).toString('utf8');
  }

  it('serves proofs that verify offline against the served checkpoint and key', async () => {
    const key = await get('/key');
    expect(key.status).to.equal(200);
    assertMatchesContract(getLogKey, 200, key.body);
    expect(key.body.origin).to.match(/\/acme$/);

    // Nothing logged yet.
    for (const path of ['/checkpoint', '/proof/inclusion?index=0&tree_size=1', '/proof/consistency?from=0&to=0'])
      expect((await get(path)).status, path).to.equal(404);
    expect((await begin('b1')).status).to.equal(201);
    for (let i = 0; i < 4; i++) expect((await attest('b1', `a${i}`)).status).to.equal(201);
    const older = await checkpoint();
    for (let i = 4; i < 9; i++) expect((await attest('b1', `a${i}`)).status).to.equal(201);
    const newer = await checkpoint();
    expect(newer.split('\n').slice(0, 2)).to.deep.equal([key.body.origin, '10']);

    for (let index = 0; index < 10; index++) {
      const response = await get(`/proof/inclusion?index=${index}&tree_size=10`);
      expect(response.status, String(index)).to.equal(200);
      assertMatchesContract(getLogInclusionProof, 200, response.body);
      expect(JSON.parse(response.body.leaf)).to.include({ seq: index + 1, org: 'acme' });
      const evidence = {
        leaf: Buffer.from(response.body.leaf, 'utf8'),
        leafHash: Buffer.from(response.body.leaf_hash, 'base64'),
        index,
        proof: decodeProof(response.body.proof),
        checkpoint: newer,
        verifierKey: key.body.verifier_key,
        origin: key.body.origin,
      };
      expect(verifyLeafInclusion(evidence).size).to.equal(10);
      // The same proof against another leaf, or another key, fails.
      expect(verificationOutcome(() => verifyLeafInclusion({ ...evidence, leafHash: undefined, leaf: Buffer.from(`${response.body.leaf} `) }))).to.equal(
        'inclusion-root-mismatch',
      );
    }
    const consistency = await get('/proof/consistency?from=5&to=10');
    expect(consistency.status).to.equal(200);
    assertMatchesContract(getLogConsistencyProof, 200, consistency.body);
    verifyCheckpointConsistency({ older, newer, proof: decodeProof(consistency.body.proof), verifierKey: key.body.verifier_key, origin: key.body.origin });

    const list = await get('/checkpoints?per_page=1&page=2');
    expect(list.status).to.equal(200);
    assertMatchesContract(listLogCheckpoints, 200, list.body);
    expect(list.body).to.have.length(1);
    expect(list.body[0]).to.include({ tree_size: 5, checkpoint: older });
    assertMatchesContract(getLogCheckpoint, 200, newer);
  });

  it('answers 400 naming the field for values out of range, and nothing for another organisation', async () => {
    expect((await begin('b1')).status).to.equal(201);
    expect((await attest('b1', 'unit')).status).to.equal(201);
    const cases: Array<[string, string]> = [
      ['/proof/inclusion?index=2&tree_size=2', 'index'],
      ['/proof/inclusion?index=0&tree_size=3', 'tree_size'],
      ['/proof/inclusion?index=0&tree_size=0', 'tree_size'],
      ['/proof/inclusion?index=-1&tree_size=2', 'index'],
      ['/proof/inclusion?index=x&tree_size=2', 'index'],
      ['/proof/inclusion?tree_size=2', 'index'],
      ['/proof/consistency?from=2&to=1', 'from'],
      ['/proof/consistency?from=1&to=3', 'to'],
      ['/proof/consistency?from=1&to=99999999999999999999', 'to'],
      ['/checkpoints?per_page=0', 'per_page'],
    ];
    for (const [path, field] of cases) {
      const response = await get(path);
      expect(response.status, path).to.equal(400);
      expect(response.body.errors, path).to.have.property(`query.${field}`);
    }
    // Equal sizes, and from 0, are empty proofs.
    expect((await get('/proof/consistency?from=2&to=2')).body.proof).to.deep.equal([]);
    expect((await get('/proof/consistency?from=0&to=2')).body.proof).to.deep.equal([]);
    // Another organisation's token reads nothing of acme's log.
    for (const path of ['/key', '/checkpoint', '/checkpoints', '/proof/inclusion?index=0&tree_size=1', '/proof/consistency?from=0&to=1']) {
      expect((await get(path, server.otherToken)).status, path).to.be.oneOf([403, 404]);
      expect((await get(path, null as never)).status, path).to.equal(401);
    }
  });

  it('shows the leaf index of every piece of evidence, whose inclusion proof names that evidence', async () => {
    const fingerprint = createHash('sha256').update('app').digest('hex');
    expect((await begin('b1')).status).to.equal(201);
    expect((await attest('b1', 'unit')).status).to.equal(201);
    expect((await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'prod', type: 'server' } })).status).to.equal(201);
    expect(
      (
        await server.request('PUT', '/api/v2/environments/acme/prod/report/server', {
          json: { artifacts: [{ digests: { app: fingerprint }, creationTimestamp: 1_763_800_000 }] },
        })
      ).status,
    ).to.equal(201);
    expect(
      (
        await server.request('POST', '/api/v2/approvals/acme/app', {
          json: { artifact_fingerprint: fingerprint, description: 'release 1', src_commit_list: [] },
        })
      ).status,
    ).to.equal(201);
    const reviewed = await server.request('PUT', '/api/v2/approvals/acme/app/1', { json: { state: 'APPROVED', approved_by: 'ada', comment: 'ok' } });
    expect(reviewed.status).to.equal(200);
    expect((await begin('b1')).status).to.equal(200); // begun again: the trail shows its latest begin

    const trail = await server.request('GET', '/api/v2/trails/acme/app/b1', { token: server.readToken });
    assertMatchesContract(getTrail, 200, trail.body);
    const snapshot = await server.request('GET', '/api/v2/environments/acme/prod/snapshots/1', { token: server.readToken });
    assertMatchesContract(getSnapshot, 200, snapshot.body);
    const approval = await server.request('GET', '/api/v2/approvals/acme/app/1', { token: server.readToken });
    assertMatchesContract(getApproval, 200, approval.body);
    const approvals = await server.request('GET', '/api/v2/approvals/acme/app', { token: server.readToken });
    assertMatchesContract(listApprovals, 200, approvals.body);
    expect(approvals.body[0].log_index).to.equal(approval.body.log_index);
    expect(reviewed.body.approvals[0].log_index).to.equal(approval.body.approvals[0].log_index);

    const shown: Array<[number, string, string]> = [
      [trail.body.log_index, 'trail.begin', 'trails'],
      [trail.body.attestations[0].log_index, 'attestation', 'attestations'],
      [snapshot.body.log_index, 'snapshot', 'snapshots'],
      [approval.body.log_index, 'approval', 'approvals'],
      [approval.body.approvals[0].log_index, 'review', 'reviews'],
    ];
    expect(shown.map(([index]) => index)).to.deep.equal([5, 1, 2, 3, 4]);
    const note = await checkpoint();
    const key = (await get('/key')).body.verifier_key;
    for (const [index, type, table] of shown) {
      const proof = await get(`/proof/inclusion?index=${index}&tree_size=6`);
      const leaf = JSON.parse(proof.body.leaf);
      expect(leaf, type).to.include({ type });
      expect(leaf.ref.table, type).to.equal(table);
      verifyLeafInclusion({ leaf: Buffer.from(proof.body.leaf), index, proof: decodeProof(proof.body.proof), checkpoint: note, verifierKey: key });
    }
    expect(Number(trail.body.attestations[0].attestation_id)).to.equal(JSON.parse((await get('/proof/inclusion?index=1&tree_size=6')).body.leaf).ref.id);
  });
});
