// @database
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { expect } from 'chai';
import { listEnvironments, type Operation } from '@trailproof/schema';
import { createRouter, createToken, defaultPlugins, definePlugin, DuplicateOperationError, type Authenticator, type Store } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';

const plugin = (operation: Operation) => definePlugin({ operation, handler: async () => ({ status: 200, body: 'ok' }) as never });

describe('createRouter', () => {
  let store: Store;
  let cleanup: () => void | Promise<void>;
  before(async () => ({ store, cleanup } = await openTestStore()));
  after(async () => {
    await store.close();
    await cleanup();
  });

  const thrown = (plugins: ReturnType<typeof plugin>[]) => {
    try {
      createRouter({ store, plugins: [...defaultPlugins, ...plugins] });
    } catch (error) {
      return error as DuplicateOperationError;
    }
    throw new Error('createRouter did not throw');
  };

  it('throws DuplicateOperationError when two plugins use the same operation id', () => {
    const error = thrown([plugin({ ...listEnvironments, path: '/somewhere-else/{org}' })]);
    expect(error).to.be.instanceOf(DuplicateOperationError);
    expect(error.name).to.equal('DuplicateOperationError');
    expect(error.code).to.equal('TRAILPROOF_DUPLICATE_OPERATION');
    expect(error.message).to.contain("'listEnvironments'");
  });

  it('throws DuplicateOperationError when two plugins answer the same method and path, whatever their parameter names', () => {
    for (const path of ['/environments/{org}', '/environments/{organisation}']) {
      const error = thrown([plugin({ ...listEnvironments, id: 'listEnvironmentsAgain', path })]);
      expect(error, path).to.be.instanceOf(DuplicateOperationError);
      expect(error.code).to.equal('TRAILPROOF_DUPLICATE_OPERATION');
      expect(error.message).to.contain('listEnvironments').and.to.contain('listEnvironmentsAgain');
    }
    const twice = plugin({ ...listEnvironments, id: 'one', path: '/x/{org}' });
    expect(() => createRouter({ store, plugins: [twice, { ...twice, operation: { ...twice.operation, id: 'two' } }] })).to.throw(DuplicateOperationError);
  });

  it("throws DuplicateOperationError for a plugin on the router's own routes (the OpenAPI document, the health check)", () => {
    for (const [path, own] of [
      ['/health', 'the health check'],
      ['/openapi.json', 'the OpenAPI document'],
    ] as const) {
      const error = thrown([plugin({ ...listEnvironments, id: 'mine', path })]);
      expect(error, path).to.be.instanceOf(DuplicateOperationError);
      expect(error.message).to.contain(`where the router serves ${own}`);
    }
    expect(() =>
      createRouter({ store, plugins: [...defaultPlugins, plugin({ ...listEnvironments, id: 'postHealth', method: 'POST', path: '/health' })] }),
    ).not.to.throw();
  });

  it('accepts the same path with another method, and another path with the same method', () => {
    expect(() =>
      createRouter({ store, plugins: [...defaultPlugins, plugin({ ...listEnvironments, id: 'deleteEnvironments', method: 'DELETE' })] }),
    ).not.to.throw();
    expect(() =>
      createRouter({ store, plugins: [...defaultPlugins, plugin({ ...listEnvironments, id: 'listElsewhere', path: '/elsewhere/{org}' })] }),
    ).not.to.throw();
  });

  describe('mounted in a host app under a custom prefix', () => {
    let server: Server;
    let url = '';
    let token = '';
    before(async () => {
      token = (await createToken(store, { org: 'acme' })).token;
      const org = Number((await store.findOrganization('acme'))!.id);
      const env = await store.upsertEnvironment(org, { name: 'production', type: 'K8S' }, 1_763_000_000);
      await store.insertDeployments([
        {
          organizationId: org,
          environmentId: env.id,
          envName: 'production',
          snapshotIndex: 1,
          fingerprint: 'f'.repeat(64),
          artifactName: 'api',
          deployedAt: Date.now() / 1000 - 60,
          trailId: null,
          repoName: null,
        },
      ]);
      // An authenticator of the host's own, next to the token store.
      const hostAuth: Authenticator = { authenticate: async (h) => (h === 'Bearer host-session' ? { tokenId: 'host', org: 'acme', readOnly: true } : null) };
      const app = new Koa();
      const router = createRouter({ store, prefix: '/compliance/api/v2' });
      const hosted = createRouter({ store, prefix: '/hosted', auth: hostAuth });
      // A host whose own part fails underneath the router (its session store is down).
      const failing = createRouter({
        store,
        prefix: '/failing',
        auth: {
          authenticate: async () => {
            throw new Error('session store down at 10.0.0.7');
          },
        },
      });
      app.use(async (ctx, next) => {
        if (ctx.path === '/health') ctx.body = 'host ok';
        else await next();
      });
      // A host that names its requests.
      app.use(async (ctx, next) => {
        if (ctx.get('x-host-request')) ctx.state.requestId = ctx.get('x-host-request');
        await next();
      });
      app.use(router.routes()).use(router.allowedMethods());
      app.use(hosted.routes());
      app.use(failing.routes());
      server = createServer(app.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const get = async (path: string, authorization = `Bearer ${token}`) => {
      const res = await fetch(url + path, { headers: { authorization } });
      const text = await res.text();
      return { status: res.status, body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
    };

    it('serves every operation under the prefix, and links carry it', async () => {
      const environments = await get('/compliance/api/v2/environments/acme?per_page=5');
      expect(environments.status).to.equal(200);
      expect(environments.body.environments.map((e: { name: string }) => e.name)).to.deep.equal(['production']);
      expect(environments.body._links.self.href).to.equal('/compliance/api/v2/environments/acme?per_page=5');
      expect(environments.body._links.next).to.equal(null);
      const deployments = await get('/compliance/api/v2/deployments/acme');
      expect(deployments.status).to.equal(200);
      expect(deployments.body.deployments[0]._links).to.deep.equal({
        environment: { href: '/compliance/api/v2/environments/acme/production' },
        snapshot: { href: '/compliance/api/v2/environments/acme/production/snapshots/1' },
      });
      const doc = await get('/compliance/api/v2/openapi.json', '');
      expect(doc.status).to.equal(200);
      expect(doc.body.servers).to.deep.equal([{ url: '/compliance/api/v2' }]);
      expect(await get('/compliance/api/v2/health', '')).to.deep.equal({ status: 200, body: { status: 'ok' } });
    });

    it('answers nothing under the default prefix, and leaves the host routes alone', async () => {
      expect((await get('/api/v2/environments/acme')).status).to.equal(404);
      expect(await get('/health')).to.deep.equal({ status: 200, body: 'host ok' });
      const refused = await get('/compliance/api/v2/environments/acme', 'Bearer nope');
      expect(refused.status).to.equal(401);
      expect(refused.body.message).to.be.a('string');
    });

    it("answers a failure under it with a 500 that shows nothing internal, naming the host's request id when it set one", async () => {
      expect(await get('/failing/environments/acme')).to.deep.equal({ status: 500, body: { message: 'Internal server error' } });
      const named = await fetch(`${url}/failing/environments/acme`, { headers: { authorization: `Bearer ${token}`, 'x-host-request': 'host-42' } });
      expect(named.status).to.equal(500);
      expect(await named.json()).to.deep.equal({ message: 'Internal server error (request host-42)' });
    });

    it('uses the authenticator it is given', async () => {
      const viaHost = await get('/hosted/environments/acme', 'Bearer host-session');
      expect(viaHost.status).to.equal(200);
      expect(viaHost.body.total_count).to.equal(1);
      expect((await get('/hosted/environments/acme')).status).to.equal(401); // store tokens are not this router's
      const write = await fetch(`${url}/hosted/environments/acme`, {
        method: 'PUT',
        headers: { authorization: 'Bearer host-session', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x', type: 'server' }),
      });
      expect(write.status).to.equal(403); // the host said read-only
    });
  });
});
