// @database
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createToken } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';
import { createHostApp } from './embed-koa.ts';

describe('example: embedding the router in an existing Koa app', () => {
  let server: Server;
  let base: string;
  let token: string;
  let done: () => Promise<void>;

  before(async () => {
    const { store, cleanup } = await openTestStore();
    token = (await createToken(store, { org: 'acme' })).token;
    server = createServer(createHostApp(store).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    done = async () => {
      await new Promise((resolve) => server.close(resolve));
      await store.close();
      await cleanup();
    };
  });
  after(() => done());

  it("keeps the host's own routes, without Trailproof's auth", async () => {
    const health = await fetch(`${base}/health`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.deep.equal({ ok: true });
    expect(await (await fetch(`${base}/`)).text()).to.contain('Acme internal portal');
  });

  it('serves the API under the prefix, with auth, and links that carry the prefix', async () => {
    const unauthenticated = await fetch(`${base}/compliance/api/v2/environments/acme`);
    expect(unauthenticated.status).to.equal(401);
    expect(((await unauthenticated.json()) as { message: string }).message).to.match(/Bearer/);

    const form = new FormData();
    form.append('data_json', JSON.stringify({ name: 'build-1' }));
    const begun = await fetch(`${base}/compliance/api/v2/trails/acme/app`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(begun.status).to.equal(201);

    const list = await fetch(`${base}/compliance/api/v2/environments/acme?per_page=5`, { headers: { authorization: `Bearer ${token}` } });
    expect(list.status).to.equal(200);
    const body = (await list.json()) as { _links: { self: { href: string } } };
    expect(body._links.self.href).to.equal('/compliance/api/v2/environments/acme?per_page=5');
  });

  it('answers 405 for a known path with another method, and leaves unknown paths to the host', async () => {
    const wrongMethod = await fetch(`${base}/compliance/api/v2/environments/acme`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(wrongMethod.status).to.equal(405);
    expect(wrongMethod.headers.get('allow')).to.contain('GET');
    expect(wrongMethod.headers.get('content-type')).to.match(/^application\/json/);
    expect(await wrongMethod.json()).to.deep.equal({ message: 'Method not allowed' });
    const unknown = await fetch(`${base}/nothing-here`);
    expect(unknown.status).to.equal(404);
  });

  it('publishes its OpenAPI document under the prefix', async () => {
    const doc = (await (await fetch(`${base}/compliance/api/v2/openapi.json`)).json()) as { servers: Array<{ url: string }>; paths: object };
    expect(doc.servers[0]?.url).to.equal('/compliance/api/v2');
    expect(Object.keys(doc.paths)).to.include('/trails/{org}/{flow_name}');
  });
});
