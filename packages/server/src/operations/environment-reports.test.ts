// @database
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { getEnvironment, getSnapshot, putEnvironment, reportK8S, reportServer } from '@trailproof/schema';
import { assertMatchesContract, startTestServer, type TestServer } from '@trailproof/server/testing';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const pod = (podName: string, image: string, creationTimestamp = 1_763_800_000) => ({
  podName,
  namespace: 'prod',
  digests: { [image]: sha(image) },
  creationTimestamp,
});

describe('environments and snapshot reports', () => {
  let server: TestServer;
  beforeEach(async () => (server = await startTestServer()));
  afterEach(() => server.close());

  const putEnv = (json: unknown) => server.request('PUT', '/api/v2/environments/acme', { json });
  const getEnv = (name: string) => server.request('GET', `/api/v2/environments/acme/${name}`);
  const report = (env: string, type: string, artifacts: unknown[]) =>
    server.request('PUT', `/api/v2/environments/acme/${env}/report/${type}`, { json: { artifacts } });

  it('creates (201) and updates (200) an environment; fields left out keep their value', async () => {
    const created = await putEnv({ name: 'prod', type: 'K8S', description: 'Production', include_scaling: true, tags: { team: 'core' }, policies: ['p1'] });
    expect(created.status).to.equal(201);
    assertMatchesContract(putEnvironment, 201, created.body);
    const env = await getEnv('prod');
    expect(env.status).to.equal(200);
    assertMatchesContract(getEnvironment, 200, env.body);
    expect(env.body).to.deep.include({
      org: 'acme',
      name: 'prod',
      type: 'K8S',
      description: 'Production',
      include_scaling: true,
      tags: { team: 'core' },
      policies: ['p1'],
      included_environments: [],
      state: false,
      last_reported_at: 0,
      last_changed_at: 0,
    });

    const updated = await putEnv({ name: 'prod', type: 'K8S', description: 'Prod cluster' });
    expect(updated.status).to.equal(200);
    const after = (await getEnv('prod')).body;
    expect(after).to.deep.include({ description: 'Prod cluster', include_scaling: true, tags: { team: 'core' }, policies: ['p1'] });
    expect(after.last_modified_at).to.be.at.least(env.body.last_modified_at);
    // The tag filter of list environments sees tags set here.
    const listed = await server.request('GET', '/api/v2/environments/acme?tag=team:core');
    expect(listed.body.environments.map((e: { name: string }) => e.name)).to.deep.equal(['prod']);
  });

  it('validates environments: types of the SPEC list, included environments only for logical ones', async () => {
    const bad = await putEnv({ name: 'x', type: 'mainframe' });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors).to.have.key('type');
    await putEnv({ name: 'eu', type: 'ECS' });
    await putEnv({ name: 'all-logical', type: 'logical', included_environments: ['eu'] });
    const notLogical = await putEnv({ name: 'us', type: 'ECS', included_environments: ['eu'] });
    expect(notLogical.status).to.equal(400);
    expect(notLogical.body.errors).to.have.key('included_environments');
    const unknown = await putEnv({ name: 'world', type: 'logical', included_environments: ['eu', 'mars', 'all-logical'] });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.errors).to.deep.equal({
      'included_environments.1': "environment 'mars' does not exist",
      'included_environments.2': "environment 'all-logical' is logical; include physical environments",
    });
    expect((await getEnv('nope')).status).to.equal(404);
  });

  it('makes a snapshot only when the set of running artifacts changes (201, then 200), numbering 1, 2, ...', async () => {
    await putEnv({ name: 'prod', type: 'K8S' });
    const first = await report('prod', 'K8S', [pod('web-1', 'acme/web:1'), pod('web-2', 'acme/web:1'), pod('api-1', 'acme/api:1')]);
    expect(first.status).to.equal(201);
    assertMatchesContract(reportK8S, 201, first.body);
    expect(first.body).to.deep.equal({
      snapshot_index: 1,
      changed: true,
      deployed: [sha('acme/api:1'), sha('acme/web:1')],
      _links: { snapshot: { href: '/api/v2/environments/acme/prod/snapshots/1' } },
    });
    const envAfterFirst = (await getEnv('prod')).body;
    expect(envAfterFirst.last_reported_at).to.equal(envAfterFirst.last_changed_at);

    // Pods restarted under other names, one fewer replica: not a change without include_scaling.
    const same = await report('prod', 'K8S', [pod('web-9', 'acme/web:1', 1_763_900_000), pod('api-7', 'acme/api:1')]);
    expect(same.status).to.equal(200);
    assertMatchesContract(reportK8S, 200, same.body);
    expect(same.body).to.deep.include({ snapshot_index: 1, changed: false, deployed: [] });
    const envAfterSame = (await getEnv('prod')).body;
    expect(envAfterSame.last_changed_at).to.equal(envAfterFirst.last_changed_at);
    expect(envAfterSame.last_modified_at).to.equal(envAfterFirst.last_modified_at);
    expect(envAfterSame.last_reported_at).to.be.at.least(envAfterFirst.last_reported_at);

    const second = await report('prod', 'K8S', [pod('web-3', 'acme/web:2'), pod('api-1', 'acme/api:1')]);
    expect(second.status).to.equal(201);
    expect(second.body).to.deep.include({ snapshot_index: 2, deployed: [sha('acme/web:2')] });

    const snapshot = await server.request('GET', '/api/v2/environments/acme/prod/snapshots/-1');
    expect(snapshot.status).to.equal(200);
    assertMatchesContract(getSnapshot, 200, snapshot.body);
    expect(snapshot.body).to.deep.include({ env_name: 'prod', type: 'K8S', snapshot_index: 2 });
    expect(snapshot.body.artifacts).to.deep.equal([
      {
        name: 'acme/api:1',
        fingerprint: sha('acme/api:1'),
        instance_count: 1,
        creation_timestamp: 1_763_800_000,
        instances: [{ podName: 'api-1', namespace: 'prod' }],
        new: false,
        _links: {},
      },
      {
        name: 'acme/web:2',
        fingerprint: sha('acme/web:2'),
        instance_count: 1,
        creation_timestamp: 1_763_800_000,
        instances: [{ podName: 'web-3', namespace: 'prod' }],
        new: true,
        _links: {},
      },
    ]);
    const firstSnapshot = (await server.request('GET', '/api/v2/environments/acme/prod/snapshots/1')).body;
    expect(firstSnapshot.artifacts.find((a: { name: string }) => a.name === 'acme/web:1').instance_count).to.equal(2);
    expect((await server.request('GET', '/api/v2/environments/acme/prod/snapshots/3')).status).to.equal(404);
  });

  it('with include_scaling, a change in the number of instances is a new snapshot but not a deployment', async () => {
    await putEnv({ name: 'prod', type: 'K8S', include_scaling: true });
    await report('prod', 'K8S', [pod('web-1', 'acme/web:1')]);
    const scaled = await report('prod', 'K8S', [pod('web-1', 'acme/web:1'), pod('web-2', 'acme/web:1')]);
    expect(scaled.status).to.equal(201);
    expect(scaled.body).to.deep.include({ snapshot_index: 2, deployed: [] });
  });

  it('counts one artifact running under two names as one deployment', async () => {
    await putEnv({ name: 'prod', type: 'docker' });
    const res = await report('prod', 'docker', [{ digests: { 'web:1': sha('web'), 'web:latest': sha('web') }, creationTimestamp: 1 }]);
    expect(res.body.deployed).to.deep.equal([sha('web')]);
    const snapshot = (await server.request('GET', '/api/v2/environments/acme/prod/snapshots/1')).body;
    expect(snapshot.artifacts.map((a: { name: string }) => a.name)).to.deep.equal(['web:1', 'web:latest']);
    expect(
      (await server.request('GET', '/api/v2/deployments/acme?env_name=prod')).body.deployments.map((d: { artifact_name: string }) => d.artifact_name),
    ).to.deep.equal(['web:1']);
  });

  it('records deployments linked to the trail that attested the fingerprint, and sets state from its compliance', async () => {
    const fingerprint = sha('acme/web:1');
    await server.request('PUT', '/api/v2/trails/acme/web', {
      form: { data_json: JSON.stringify({ name: 'build-1', repo_info: { name: 'acme/web', url: 'https://git.example.com/acme/web' } }) },
    });
    await server.request('POST', '/api/v2/attestations/acme/web/trail/build-1/junit', {
      form: {
        data_json: JSON.stringify({
          attestation_name: 'unit',
          artifact_fingerprint: fingerprint,
          junit_results: [{ name: 's', failures: 1, errors: 0, skipped: 0, total: 3, duration: 1 }],
        }),
      },
    });
    await putEnv({ name: 'prod', type: 'server' });
    expect((await getEnv('prod')).body).to.include({ state: false, last_reported_at: 0 });
    const first = await report('prod', 'server', [{ digests: { 'acme/web:1': fingerprint }, creationTimestamp: 1_763_800_000 }]);
    assertMatchesContract(reportServer, 201, first.body);
    const reported = (await getEnv('prod')).body;
    expect(reported.state).to.equal(false);
    expect(reported.last_reported_at).to.be.greaterThan(0);

    const deployments = (await server.request('GET', '/api/v2/deployments/acme?repo_name=acme/web')).body.deployments;
    expect(deployments).to.have.length(1);
    expect(deployments[0]).to.deep.include({ fingerprint, artifact_name: 'acme/web:1', env_name: 'prod', snapshot_index: 1 });
    expect(deployments[0]._links.trail).to.deep.equal({ href: '/api/v2/trails/acme/web/build-1' });
    expect(deployments[0]._links.snapshot).to.deep.equal({ href: '/api/v2/environments/acme/prod/snapshots/1' });

    // The trail is fixed; the next (unchanged) report re-evaluates the state.
    await server.request('POST', '/api/v2/attestations/acme/web/trail/build-1/junit', {
      form: {
        data_json: JSON.stringify({
          attestation_name: 'unit',
          artifact_fingerprint: fingerprint,
          junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 3, duration: 1 }],
        }),
      },
    });
    expect((await report('prod', 'server', [{ digests: { 'acme/web:1': fingerprint }, creationTimestamp: 1_763_800_000 }])).status).to.equal(200);
    expect((await getEnv('prod')).body.state).to.equal(true);

    // An artifact no trail attested makes the environment non-compliant; an empty environment is compliant.
    await report('prod', 'server', [{ digests: { 'acme/web:1': fingerprint, 'unknown:1': sha('unknown') }, creationTimestamp: 1_763_800_000 }]);
    expect((await getEnv('prod')).body.state).to.equal(false);
    const unlinked = (await server.request('GET', '/api/v2/deployments/acme?env_name=prod')).body.deployments[0];
    expect(unlinked).to.deep.include({ fingerprint: sha('unknown'), snapshot_index: 2 });
    expect(unlinked._links).to.not.have.property('trail');
    expect((await report('prod', 'server', [])).body).to.deep.include({ snapshot_index: 3, deployed: [] });
    expect((await getEnv('prod')).body.state).to.equal(true);
  });

  it("accepts each runtime's report shape and refuses reports of another type or to unknown environments", async () => {
    const digests = { 'app:1': sha('app:1') };
    const shapes: Record<string, Record<string, unknown>> = {
      server: {},
      docker: {},
      S3: {},
      lambda: {},
      K8S: { podName: 'p', namespace: 'n', owners: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u', controller: true }] },
      ECS: { taskArn: 'arn:aws:ecs:eu-west-1:1:task/c/1', cluster_name: 'c', service_name: 's' },
      'azure-apps': { app_name: 'web', app_kind: 'app', digests_source: 'acr' },
      'cloud-run': { revisionName: 'web-00001', service_name: 'web' },
    };
    for (const [type, fields] of Object.entries(shapes)) {
      await putEnv({ name: `env-${type}`, type });
      const res = await server.request('PUT', `/api/v2/environments/acme/env-${type}/report/${type}`, {
        json: { type, artifacts: [{ ...fields, digests, creationTimestamp: 1_763_800_000 }] },
      });
      expect(res.status, type).to.equal(201);
    }
    const instances = (await server.request('GET', '/api/v2/environments/acme/env-ECS/snapshots/1')).body.artifacts[0].instances;
    expect(instances).to.deep.equal([{ taskArn: 'arn:aws:ecs:eu-west-1:1:task/c/1', cluster_name: 'c', service_name: 's' }]);

    const missingPod = await report('env-K8S', 'K8S', [{ digests, creationTimestamp: 1 }]);
    expect(missingPod.status).to.equal(400);
    expect(missingPod.body.errors).to.have.keys(['artifacts.0.podName', 'artifacts.0.namespace']);
    const badDigest = await report('env-server', 'server', [{ digests: { app: 'sha256:abc' }, creationTimestamp: 1 }]);
    expect(badDigest.status).to.equal(400);
    expect(badDigest.body.errors).to.have.key('artifacts.0.digests.app');
    const wrongType = await report('env-server', 'docker', [{ digests, creationTimestamp: 1 }]);
    expect(wrongType.status).to.equal(400);
    expect(wrongType.body.message).to.match(/is of type server/);
    expect((await report('nowhere', 'server', [])).status).to.equal(404);
    expect(
      (await server.request('PUT', '/api/v2/environments/acme/env-server/report/server', { json: { artifacts: [] }, token: server.readToken })).status,
    ).to.equal(403);
  });
});
