// @database
import { expect } from 'chai';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { createConsole, createToken } from '@trailproof/server';
import { openTestStore } from '@trailproof/server/testing';

describe('the console mounted in another Koa app', () => {
  it("serves its pages under the host's prefix, its links and cookie carry it, and the host's routes stay the host's", async () => {
    const { store, cleanup } = await openTestStore();
    const { token } = await createToken(store, { org: 'acme', readOnly: true });
    const app = new Koa();
    app.use(createConsole({ store, prefix: '/portal/evidence' }).routes());
    app.use((ctx) => {
      ctx.body = 'host';
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const signIn = await fetch(`${url}/portal/evidence/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }),
      });
      expect([signIn.status, signIn.headers.get('location')]).to.deep.equal([303, '/portal/evidence/acme']);
      const cookie = signIn.headers.get('set-cookie')!;
      expect(cookie).to.contain('path=/portal/evidence;');
      const page = await fetch(`${url}/portal/evidence/acme`, { headers: { cookie: cookie.split(';')[0]! } });
      const html = await page.text();
      expect(page.status).to.equal(200);
      expect(html).to.contain('href="/portal/evidence/static/console.css?v=').and.contain('action="/portal/evidence/sign-out"');
      expect(html).to.contain(`curl -X PUT &quot;${url}/api/v2/environments/acme&quot;`);
      expect(await (await fetch(`${url}/elsewhere`)).text()).to.equal('host');
    } finally {
      server.close();
      await store.close();
      await cleanup();
    }
  });
});
