// @database
/**
 * The Kosli CLI's environment requests, byte for byte as it sends them, and its reading of the
 * answers. Followed: cmd/kosli/createEnvironment.go (`CreateEnvironmentPayload`: require_provenance
 * always, include_scaling and included_environments only when set), cmd/kosli/snapshotK8S.go and
 * internal/kube (`K8sEnvRequest{artifacts: []PodData}`, `owners` null for a pod without owners),
 * cmd/kosli/snapshotServer.go and internal/server (`ServerEnvRequest`, `ServerData`),
 * cmd/kosli/snapshotDocker.go (the same body, Basic authorization in the releases that used
 * `RequestParams.Password`), cmd/kosli/listEnvironments.go (no page or per_page: every
 * environment; `last_reported_at`/`last_modified_at` read as float64 when not null),
 * cmd/kosli/getEnvironment.go (`tags` read as a map, `state` as a bool, `policies` as a list).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { cliSucceeds, goDecodeProblems, sendAsCli, type CliCall, type GoType } from './go-wire.ts';

const fingerprint = (name: string) => createHash('sha256').update(name).digest('hex');

/** An environment as the CLI's table printers read it. */
const environmentAsRead: GoType = {
  name: 'string',
  type: 'string',
  description: 'string',
  state: 'bool?',
  last_reported_at: 'float64?',
  last_modified_at: 'float64?',
  tags: 'map',
  policies: ['string'],
};
/** The paginated envelope's figures: Go ints. */
const envelopeAsRead: GoType = { page: 'int', per_page: 'int', total_pages: 'int', total_count: 'int', environments: [environmentAsRead] };

describe('Kosli CLI wire format: environments and snapshots', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  const send = async (call: Omit<CliCall, 'token'>, expected: number) => {
    const answer = await sendAsCli(server.url, { token: server.token, ...call });
    expect(answer.status, `${call.method} ${call.path}: ${answer.text}`).to.equal(expected);
    expect(cliSucceeds(answer.status)).to.equal(true);
    return answer;
  };
  const createEnvironment = (payload: Record<string, unknown>, expected: number, auth: CliCall['auth'] = 'bearer') =>
    send({ method: 'PUT', path: '/api/v2/environments/acme', payload, auth }, expected);

  it('create environment: K8S, server and docker (201, then 200), include_scaling only when a flag set it, Basic authorization too', async () => {
    await createEnvironment({ name: 'prod-k8s', type: 'K8S', description: 'Production <eu>', require_provenance: false }, 201);
    await createEnvironment({ name: 'prod-k8s', type: 'K8S', description: 'Production <eu>', include_scaling: true, require_provenance: false }, 200);
    await createEnvironment({ name: 'prod-server', type: 'server', description: '', require_provenance: false }, 201, 'basic');
    await createEnvironment({ name: 'prod-docker', type: 'docker', description: '', require_provenance: true }, 201);
    await createEnvironment(
      { name: 'prod', type: 'logical', description: '', require_provenance: false, included_environments: ['prod-k8s', 'prod-server'] },
      201,
    );
  });

  it('snapshot k8s, server and docker: 201 for a change, 200 for the same report again', async () => {
    const pods = {
      artifacts: [
        {
          podName: 'shop-7d9f-abcde',
          namespace: 'shop',
          digests: { 'registry.acme.example/shop:1.4': fingerprint('shop:1.4') },
          creationTimestamp: 1_763_000_000,
          owners: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'shop-7d9f',
              uid: '4f0c1d2e-aaaa-bbbb-cccc-1234567890ab',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        { podName: 'debug', namespace: 'shop', digests: { 'busybox:1.36': fingerprint('busybox') }, creationTimestamp: 1_763_000_100, owners: null },
      ],
    };
    await send({ method: 'PUT', path: '/api/v2/environments/acme/prod-k8s/report/K8S', payload: pods }, 201);
    await send({ method: 'PUT', path: '/api/v2/environments/acme/prod-k8s/report/K8S', payload: pods }, 200);
    const files = { artifacts: [{ digests: { '/srv/shop/app.jar': fingerprint('app.jar') }, creationTimestamp: 1_763_000_200 }] };
    await send({ method: 'PUT', path: '/api/v2/environments/acme/prod-server/report/server', payload: files }, 201);
    const containers = { artifacts: [{ digests: { 'registry.acme.example/shop:1.4': fingerprint('shop:1.4') }, creationTimestamp: 1_763_000_300 }] };
    await send({ method: 'PUT', path: '/api/v2/environments/acme/prod-docker/report/docker', payload: containers, auth: 'basic' }, 201);
    // Nothing running is a report too (an empty cluster), sent as an empty list.
    await send({ method: 'PUT', path: '/api/v2/environments/acme/prod-docker/report/docker', payload: { artifacts: [] } }, 201);
  });

  it('get environment: every field the CLI reads has the Go type it reads it as', async () => {
    const answer = await send({ method: 'GET', path: '/api/v2/environments/acme/prod-k8s' }, 200);
    expect(goDecodeProblems(answer.json, environmentAsRead)).to.deep.equal([]);
    expect(answer.json).to.include({ name: 'prod-k8s', type: 'K8S', include_scaling: true });
  });

  it('list environments with neither page nor per_page (as the CLI sends it): every environment, past the default page size', async () => {
    for (let i = 0; i < 25; i++)
      await createEnvironment({ name: `svc-${String(i).padStart(2, '0')}`, type: 'server', description: '', require_provenance: false }, 201);
    const answer = await send({ method: 'GET', path: '/api/v2/environments/acme' }, 200);
    expect(goDecodeProblems(answer.json, envelopeAsRead)).to.deep.equal([]);
    expect(answer.json).to.include({ page: 1, per_page: 29, total_pages: 1, total_count: 29 });
    expect(answer.json.environments).to.have.length(29);
    expect(answer.json._links.next).to.equal(null);
    // Integers are written as integers, never 29.0.
    expect(answer.text).to.match(/"per_page":29[,}]/);
  });

  it('list environments with one of page or per_page pages as before: per_page 20 by default, page 1 by default', async () => {
    const second = await send({ method: 'GET', path: '/api/v2/environments/acme?page=2' }, 200);
    expect(second.json).to.include({ page: 2, per_page: 20, total_pages: 2, total_count: 29 });
    expect(second.json.environments).to.have.length(9);
    const first = await send({ method: 'GET', path: '/api/v2/environments/acme?per_page=5' }, 200);
    expect(first.json).to.include({ page: 1, per_page: 5, total_pages: 6 });
  });

  it('snapshot cloud-run (internal/cloudrun/payload.go): services by revision and jobs without one; each instance kept as sent', async () => {
    await createEnvironment({ name: 'prod-run', type: 'cloud-run', description: '', require_provenance: false }, 201);
    // `ToEnvRequest`: services' revisions first, then jobs; omitempty leaves out the names a kind lacks.
    const payload = {
      type: 'cloud-run',
      artifacts: [
        {
          digests: { 'europe-docker.pkg.dev/acme/shop/web:1.4': fingerprint('web:1.4') },
          creationTimestamp: 1_763_000_400,
          kind: 'service',
          serviceName: 'web',
          revisionName: 'web-00007-abc',
        },
        {
          digests: { 'europe-docker.pkg.dev/acme/shop/nightly:2': fingerprint('nightly:2') },
          creationTimestamp: 1_763_000_500,
          kind: 'job',
          jobName: 'nightly',
        },
      ],
    };
    await send({ method: 'PUT', path: '/api/v2/environments/acme/prod-run/report/cloud-run', payload }, 201);
    await send({ method: 'PUT', path: '/api/v2/environments/acme/prod-run/report/cloud-run', payload }, 200);
    const snapshot = await send({ method: 'GET', path: '/api/v2/environments/acme/prod-run/snapshots/1' }, 200);
    const instances = Object.fromEntries((snapshot.json.artifacts as Array<{ name: string; instances: unknown[] }>).map((a) => [a.name, a.instances]));
    expect(instances).to.deep.equal({
      'europe-docker.pkg.dev/acme/shop/web:1.4': [{ kind: 'service', serviceName: 'web', revisionName: 'web-00007-abc' }],
      'europe-docker.pkg.dev/acme/shop/nightly:2': [{ kind: 'job', jobName: 'nightly' }],
    });
    // The shape documented before CLI v2.38 (revisionName, service_name) is still taken.
    const older = {
      artifacts: [{ digests: { 'web:1.3': fingerprint('web:1.3') }, creationTimestamp: 1_763_000_600, revisionName: 'web-00006', service_name: 'web' }],
    };
    await send({ method: 'PUT', path: '/api/v2/environments/acme/prod-run/report/cloud-run', payload: older }, 201);
    // Malformed names are still refused, by field.
    const bad = await sendAsCli(server.url, {
      method: 'PUT',
      path: '/api/v2/environments/acme/prod-run/report/cloud-run',
      token: server.token,
      payload: { type: 'cloud-run', artifacts: [{ ...payload.artifacts[1], kind: 7, jobName: '' }] },
    });
    expect(bad.status, bad.text).to.equal(400);
    expect(bad.json.errors).to.have.keys(['artifacts.0.kind', 'artifacts.0.jobName']);
  });

  it('Basic authorization takes only a valid token as the password: anything else is a 401, never a 5xx', async () => {
    const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;
    for (const authorization of [
      basic(`:${server.token}x`),
      basic(server.token),
      basic(`${server.token}:`),
      'Basic !!!',
      'Basic',
      basic(`:${server.otherToken}`),
    ]) {
      const res = await server.request('GET', '/api/v2/environments/acme', { token: null, headers: { authorization } });
      expect(res.status, authorization).to.equal(authorization === basic(`:${server.otherToken}`) ? 403 : 401);
    }
    const named = await server.request('GET', '/api/v2/environments/acme', { token: null, headers: { authorization: basic(`ci-user:${server.readToken}`) } });
    expect(named.status).to.equal(200);
  });

  it('an unknown environment is a 404 naming it, which the CLI prints', async () => {
    const answer = await sendAsCli(server.url, { method: 'GET', path: '/api/v2/environments/acme/nowhere', token: server.token });
    expect(answer.status).to.equal(404);
    expect(answer.json.message).to.contain("'nowhere'");
    const report = await sendAsCli(server.url, {
      method: 'PUT',
      path: '/api/v2/environments/acme/nowhere/report/K8S',
      token: server.token,
      payload: { artifacts: [] },
    });
    expect(report.status).to.equal(404);
    expect(report.json.message).to.contain("'nowhere'");
  });
});
