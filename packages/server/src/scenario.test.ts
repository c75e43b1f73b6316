// @database
/**
 * The delivery story of the README, end to end over HTTP: a flow with a template, trails with
 * JUnit attestations (one failing, then fixed by a re-attestation), three environment reports
 * making snapshots, deployments and events, and approvals requested, reviewed, listed and
 * fetched. Every derived field is checked against what the story implies.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { getApproval, getEnvironment, getSnapshot, getTrail, listApprovals, listDeployments, listEnvironmentEvents, listTrails } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const F1 = sha('backend:1');
const F2 = sha('backend:2');
const F3 = sha('backend:3');
const W1 = sha('web:1');
const C1 = '1'.repeat(40);
const C2 = '2'.repeat(40);
const C3 = '3'.repeat(40);
const C4 = '4'.repeat(40);
const template = [
  'version: 1',
  'trail:',
  '  attestations:',
  '  - name: unit-tests',
  '    type: junit',
  '  artifacts:',
  '  - name: backend',
  '    attestations:',
  '    - name: integration',
  '      type: junit',
].join('\n');
const suite = (failures: number) => ({ name: 'suite', failures, errors: 0, skipped: 0, total: 20, duration: 2.5, timestamp: 1_763_800_000 });

describe('the delivery story, end to end', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  const api = (method: string, path: string, json?: unknown) => server.request(method, `/api/v2${path}`, json === undefined ? {} : { json });
  const begin = async (flow: string, name: string, commit: string, repo: string) => {
    const res = await server.request('PUT', `/api/v2/trails/acme/${flow}`, {
      form: {
        data_json: JSON.stringify({
          name,
          git_commit_info: { sha1: commit, branch: 'main', author: 'Ada' },
          repo_info: { name: repo, url: `https://git.example.com/${repo}` },
        }),
      },
    });
    expect(res.status).to.equal(201);
  };
  const attest = async (flow: string, trail: string, data: Record<string, unknown>, xml?: string) => {
    const res = await server.request('POST', `/api/v2/attestations/acme/${flow}/trail/${trail}/junit`, {
      form: { data_json: JSON.stringify(data), ...(xml ? { attachment_file: { content: xml, name: 'junit.xml' } } : {}) },
    });
    expect(res.status).to.equal(201);
  };
  const pods = (...images: Array<[string, string]>) =>
    images.map(([image, fingerprint], i) => ({
      podName: `pod-${i}-${Math.random().toString(36).slice(2, 7)}`,
      namespace: 'prod',
      digests: { [image]: fingerprint },
      creationTimestamp: 1_763_800_000 + i,
    }));
  const report = async (expected: number, ...images: Array<[string, string]>) => {
    const res = await server.request('PUT', '/api/v2/environments/acme/production/report/K8S', { json: { artifacts: pods(...images) } });
    expect(res.status).to.equal(expected);
    await sleep(30); // reports at distinct times, so that time windows can tell them apart
    return res.body;
  };
  const deployments = async (query: string) => {
    const res = await api('GET', `/deployments/acme?${query}`);
    expect(res.status).to.equal(200);
    assertMatchesContract(listDeployments, 200, res.body);
    return res.body.deployments as Array<{
      fingerprint: string;
      artifact_name: string;
      env_name: string;
      snapshot_index: number;
      deployed_at: number;
      _links: Record<string, { href: string }>;
    }>;
  };

  it('plays the story and checks every derived field', async () => {
    // 1. A flow with a template; trails; JUnit attestations, one failing and then fixed.
    const flow = await server.request('PUT', '/api/v2/flows/acme/template_file', {
      form: { data_json: JSON.stringify({ name: 'backend', description: 'The backend service', visibility: 'private' }), template_file: { content: template } },
    });
    expect(flow.status).to.equal(201);
    await begin('backend', 'build-1', C1, 'acme/backend');
    await attest('backend', 'build-1', { attestation_name: 'unit-tests', junit_results: [suite(0)] }, '<testsuites tests="20"/>');
    await attest('backend', 'build-1', { attestation_name: 'integration', artifact_fingerprint: F1, target_artifacts: ['backend'], junit_results: [suite(2)] });
    let build1 = (await api('GET', '/trails/acme/backend/build-1')).body;
    expect(build1.compliance_status.reasons).to.deep.equal(["artifact 'backend': attestation 'integration' is not compliant"]);
    await attest('backend', 'build-1', { attestation_name: 'integration', artifact_fingerprint: F1, target_artifacts: ['backend'], junit_results: [suite(0)] });

    await begin('backend', 'build-2', C2, 'acme/backend');
    await attest('backend', 'build-2', { attestation_name: 'unit-tests', junit_results: [suite(0)] });
    await attest('backend', 'build-2', { attestation_name: 'integration', artifact_fingerprint: F2, target_artifacts: ['backend'], junit_results: [suite(0)] });
    await begin('backend', 'build-3', C3, 'acme/backend');
    await attest('backend', 'build-3', { attestation_name: 'unit-tests', junit_results: [suite(1)] });
    await attest('backend', 'build-3', { attestation_name: 'integration', artifact_fingerprint: F3, target_artifacts: ['backend'], junit_results: [suite(0)] });
    await begin('frontend', 'web-1', C4, 'acme/frontend');
    await attest('frontend', 'web-1', { attestation_name: 'web-tests', artifact_fingerprint: W1, junit_results: [suite(0)] });

    build1 = (await api('GET', '/trails/acme/backend/build-1')).body;
    assertMatchesContract(getTrail, 200, build1);
    expect(build1).to.deep.include({ compliance_state: 'COMPLIANT', is_compliant: true, git_commit_info: { sha1: C1, branch: 'main', author: 'Ada' } });
    expect(build1.repo_info).to.deep.equal({ name: 'acme/backend', url: 'https://git.example.com/acme/backend' });
    expect(
      build1.attestations.map((a: { attestation_name: string; is_compliant: boolean; is_latest: boolean }) => [
        a.attestation_name,
        a.is_compliant,
        a.is_latest,
      ]),
    ).to.deep.equal([
      ['unit-tests', true, true],
      ['integration', false, false],
      ['integration', true, true],
    ]);
    expect(build1.attestations[1].totals).to.deep.equal({ suites: 1, total: 20, failures: 2, errors: 0, skipped: 0, duration: 2.5 });
    const attachment = build1.attestations[0].attachment;
    expect(attachment).to.deep.include({ sha256: sha('<testsuites tests="20"/>'), size: 24 });
    const download = await server.request('GET', attachment._links.download.href);
    expect(new TextDecoder().decode(download.bytes)).to.equal('<testsuites tests="20"/>');
    expect(download.headers.get('x-content-sha256')).to.equal(attachment.sha256);

    const trails = (await api('GET', '/trails/acme/backend')).body;
    assertMatchesContract(listTrails, 200, trails);
    expect(trails.data.map((t: { name: string; is_compliant: boolean }) => [t.name, t.is_compliant])).to.deep.equal([
      ['build-3', false],
      ['build-2', true],
      ['build-1', true],
    ]);
    expect(trails.data[0].compliance_status.reasons).to.deep.equal(["attestation 'unit-tests' is not compliant"]);

    // 2. Three reports to production: each changes what runs, so each makes a snapshot.
    expect((await api('PUT', '/environments/acme', { name: 'production', type: 'K8S', description: 'Production cluster' })).status).to.equal(201);
    // Times are kept to the millisecond: each mark waits until the clock has moved past it, so
    // that what the server stamps afterwards is strictly later.
    const mark = async () => {
      const now = Date.now() / 1000;
      await sleep(2);
      return now;
    };
    const before1 = await mark();
    expect(await report(201, ['acme/backend:1', F1], ['acme/backend:1', F1], ['acme/web:1', W1])).to.deep.include({ snapshot_index: 1, deployed: [F1, W1] });
    let production = (await api('GET', '/environments/acme/production')).body;
    expect(production.state).to.equal(true);
    const between12 = await mark();
    expect(await report(201, ['acme/backend:2', F2], ['acme/web:1', W1])).to.deep.include({ snapshot_index: 2, deployed: [F2] });
    expect((await api('GET', '/environments/acme/production')).body.state).to.equal(true);
    const changedAt2 = (await api('GET', '/environments/acme/production')).body.last_changed_at;
    await sleep(2); // the next report is stamped a later millisecond
    expect(await report(200, ['acme/backend:2', F2], ['acme/web:1', W1])).to.deep.include({ snapshot_index: 2, changed: false, deployed: [] });
    production = (await api('GET', '/environments/acme/production')).body;
    expect(production.last_changed_at).to.equal(changedAt2);
    expect(production.last_reported_at).to.be.above(changedAt2);
    const between23 = await mark();
    expect(await report(201, ['acme/backend:2', F2], ['acme/backend:3', F3], ['acme/web:1', W1])).to.deep.include({ snapshot_index: 3, deployed: [F3] });
    production = (await api('GET', '/environments/acme/production')).body;
    assertMatchesContract(getEnvironment, 200, production);
    expect(production).to.deep.include({ state: false, last_reported_at: production.last_changed_at, last_modified_at: production.last_changed_at });
    expect(production.last_changed_at).to.be.above(between23);
    const changedAt3 = production.last_changed_at;

    // The latest snapshot: what runs, which of it is new, and the trail that attested each.
    const snapshot = (await api('GET', '/environments/acme/production/snapshots/-1')).body;
    assertMatchesContract(getSnapshot, 200, snapshot);
    expect(snapshot).to.deep.include({ env_name: 'production', type: 'K8S', snapshot_index: 3, created_at: changedAt3 });
    expect(
      snapshot.artifacts.map((a: { name: string; fingerprint: string; new: boolean; instance_count: number }) => [
        a.name,
        a.fingerprint,
        a.new,
        a.instance_count,
      ]),
    ).to.have.deep.members([
      ['acme/backend:2', F2, false, 1],
      ['acme/backend:3', F3, true, 1],
      ['acme/web:1', W1, false, 1],
    ]);
    const f3 = snapshot.artifacts.find((a: { fingerprint: string }) => a.fingerprint === F3);
    expect(f3._links.trail).to.deep.equal({ href: '/api/v2/trails/acme/backend/build-3' });
    expect(f3.instances).to.have.length(1);
    expect(f3.instances[0]).to.include({ namespace: 'prod' });

    // 3. Deployments with each filter and window.
    const all = await deployments('');
    expect(all.map((d) => [d.fingerprint, d.snapshot_index])).to.deep.equal([
      [F3, 3],
      [F2, 2],
      [W1, 1],
      [F1, 1],
    ]);
    expect(all[0]!._links).to.deep.equal({
      environment: { href: '/api/v2/environments/acme/production' },
      snapshot: { href: '/api/v2/environments/acme/production/snapshots/3' },
      trail: { href: '/api/v2/trails/acme/backend/build-3' },
    });
    expect(all[2]!._links.trail).to.deep.equal({ href: '/api/v2/trails/acme/frontend/web-1' });
    // Each deployment carries the name it ran under, its environment, and the time of the report that first saw it.
    expect(all.map((d) => [d.artifact_name, d.env_name])).to.deep.equal([
      ['acme/backend:3', 'production'],
      ['acme/backend:2', 'production'],
      ['acme/web:1', 'production'],
      ['acme/backend:1', 'production'],
    ]);
    expect(all[0]!.deployed_at).to.equal(changedAt3);
    expect(all[1]!.deployed_at).to.equal(changedAt2);
    expect(all[2]!.deployed_at).to.equal(all[3]!.deployed_at);
    expect(all[3]!.deployed_at).to.be.within(before1, between12);
    expect((await deployments('repo_name=acme/backend')).map((d) => d.fingerprint)).to.deep.equal([F3, F2, F1]);
    expect((await deployments('repo_name=acme/frontend')).map((d) => d.fingerprint)).to.deep.equal([W1]);
    expect(await deployments('repo_name=acme/nothing')).to.deep.equal([]);
    expect((await deployments('env_name=production')).length).to.equal(4);
    expect(await deployments('env_name=staging')).to.deep.equal([]);
    expect((await deployments(`start_ts=${between23}`)).map((d) => d.fingerprint)).to.deep.equal([F3]);
    expect((await deployments(`end_ts=${between12}`)).map((d) => d.fingerprint)).to.deep.equal([W1, F1]);
    expect((await deployments(`start_ts=${between12}&end_ts=${between23}&env_name=production&repo_name=acme/backend`)).map((d) => d.fingerprint)).to.deep.equal(
      [F2],
    );
    expect(await deployments(`end_ts=${before1}`)).to.deep.equal([]);
    const paged = (await api('GET', '/deployments/acme?per_page=3&page=2')).body;
    expect(paged).to.deep.include({ total_count: 4, total_pages: 2 });
    expect(paged.deployments.map((d: { fingerprint: string }) => d.fingerprint)).to.deep.equal([F1]);

    // Events: what started and exited at each snapshot (oldest first with reverse=true), each
    // linked to the trail its deployment links to.
    const trailOf = new Map(all.map((d) => [d.fingerprint, d._links.trail!.href]));
    const events = await api('GET', '/environments/acme/production/events?reverse=true');
    expect(events.status).to.equal(200);
    assertMatchesContract(listEnvironmentEvents, 200, events.body);
    type Event = {
      snapshot_index: number;
      type: string;
      artifact_name: string;
      sha256: string;
      instances_before: number;
      instances_after: number;
      reported_at: number;
      _links: { trail?: { href: string } };
    };
    expect(
      (events.body as Event[]).map((e) => [
        e.snapshot_index,
        e.type,
        e.artifact_name,
        e.sha256,
        e.instances_before,
        e.instances_after,
        e.reported_at,
        e._links.trail?.href,
      ]),
    ).to.deep.equal([
      [1, 'started', 'acme/backend:1', F1, 0, 2, all[3]!.deployed_at, trailOf.get(F1)],
      [1, 'started', 'acme/web:1', W1, 0, 1, all[2]!.deployed_at, trailOf.get(W1)],
      [2, 'exited', 'acme/backend:1', F1, 2, 0, changedAt2, trailOf.get(F1)],
      [2, 'started', 'acme/backend:2', F2, 0, 1, changedAt2, trailOf.get(F2)],
      [3, 'started', 'acme/backend:3', F3, 0, 1, changedAt3, trailOf.get(F3)],
    ]);
    expect((await api('GET', '/environments/acme/production/events?repo_name=acme/frontend')).body.map((e: Event) => e.sha256)).to.deep.equal([W1]);

    // 4. Approvals: requested, reviewed, listed, fetched.
    const first = await api('POST', '/approvals/acme/backend', {
      artifact_fingerprint: F2,
      description: 'Release 2',
      src_commit_list: [C2, C1],
      environment: 'production',
    });
    expect(first.status).to.equal(201);
    expect(first.body).to.deep.include({ release_number: 1, base_artifact: '', artifact_name: 'backend', target_artifact: F2, state: 'PENDING' });
    const createdAt = first.body.created_at;
    expect(first.body).to.deep.include({ environment: 'production', last_modified_at: createdAt });
    await sleep(20);
    const reviewed = await api('PUT', '/approvals/acme/backend/1', { state: 'APPROVED', approved_by: 'Grace', comment: 'ship it' });
    expect(reviewed.body).to.deep.include({ state: 'APPROVED', created_at: createdAt, environment: 'production' });
    // A review moves last_modified_at to its own time; the approval's creation time stays.
    expect(reviewed.body.last_modified_at).to.be.above(createdAt);
    expect(reviewed.body.last_modified_at).to.equal(reviewed.body.approvals[0].timestamp);
    const second = await api('POST', '/approvals/acme/backend', {
      artifact_fingerprint: F3,
      description: 'Release 3',
      src_commit_list: [C3],
      approvals: [{ state: 'UNAPPROVED', approved_by: 'Grace', comment: 'unit tests fail' }],
    });
    expect(second.body).to.deep.include({ release_number: 2, base_artifact: F2, artifact_name: 'backend', state: 'UNAPPROVED' });

    const list = (await api('GET', '/approvals/acme/backend')).body;
    assertMatchesContract(listApprovals, 200, list);
    expect(list.map((a: { release_number: number; state: string; src_commit_list: string[] }) => [a.release_number, a.state, a.src_commit_list])).to.deep.equal(
      [
        [2, 'UNAPPROVED', [C3]],
        [1, 'APPROVED', [C2, C1]],
      ],
    );
    const fetched = (await api('GET', '/approvals/acme/backend/1')).body;
    assertMatchesContract(getApproval, 200, fetched);
    expect(fetched.src_commit_list).to.deep.equal([
      { commit_sha: C2, artifact_fingerprints: [F2] },
      { commit_sha: C1, artifact_fingerprints: [F1] },
    ]);
    expect(fetched.approvals.map((r: { approved_by: string; comment: string; state: string }) => [r.approved_by, r.comment, r.state])).to.deep.equal([
      ['Grace', 'ship it', 'APPROVED'],
    ]);
    expect((await api('GET', '/approvals/acme/backend/-1')).body).to.deep.include({ release_number: 2, target_artifact: F3 });
  });
});
