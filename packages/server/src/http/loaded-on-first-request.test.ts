/** Middleware loaded on the first request under its prefix (the console, the badges): nothing loads for other paths, and it loads once. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { loadedOnFirstRequest } from './loaded-on-first-request.ts';

describe('loadedOnFirstRequest', () => {
  let server: Server;
  let url = '';
  let loads = 0;
  before(async () => {
    const app = new Koa();
    app.use(
      loadedOnFirstRequest('/ui', async () => {
        loads++;
        return async (ctx) => {
          ctx.body = `loaded: ${ctx.path}`;
        };
      }),
    );
    app.use((ctx) => {
      ctx.body = 'passed on';
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('passes other paths on without loading, then loads once for all the requests under the prefix', async () => {
    const text = async (path: string) => (await fetch(url + path)).text();
    expect([await text('/livez'), await text('/uix'), await text('/api/v2/ui')]).to.deep.equal(['passed on', 'passed on', 'passed on']);
    expect(loads, 'loads before any request under /ui').to.equal(0);
    expect(await Promise.all([text('/ui'), text('/ui/acme'), text('/ui/sign-in')])).to.deep.equal(['loaded: /ui', 'loaded: /ui/acme', 'loaded: /ui/sign-in']);
    expect(loads).to.equal(1);
  });

  it('with now, loads before any request; a load that fails then answers the requests with its error, and the process goes on', async () => {
    let started = 0;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const failing = loadedOnFirstRequest(
      null,
      async () => {
        started++;
        throw new Error('no such module');
      },
      { now: true },
    );
    expect(started, 'loads at once').to.equal(1);
    // A turn for the rejection to be seen unhandled, were it not handled.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled, 'rejections nothing handled').to.deep.equal([]);
    const ctx = { path: '/anything' } as Parameters<typeof failing>[0];
    const error = await failing(ctx, async () => {}).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).to.equal('no such module');
  });
});
