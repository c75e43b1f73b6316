// @database
/**
 * The console behind an HTTPS reverse proxy (issue 46, finding 4): Debian's nginx ends TLS on
 * loopback and forwards Host and X-Forwarded-Proto as docs/scaling.md says. Chromium could not
 * sign in: its Origin was `https://...`, the server compared it with `http://...` and answered
 * 403. With `serve --trust-proxy` it signs in over https with a Secure cookie and the pages' API
 * address is the proxy's; without it the forwarded headers, and any a client forges, are ignored.
 * `trailproof serve` runs as a child process on the backend under test.
 */
import { existsSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { startChildServer, type ChildServer } from './child-server.ts';
import { whileProbingHealth } from './health-probe.ts';
import { nginxPath, startNginxProxy, type NginxProxy } from '../support/nginx-proxy.ts';

const chromiumPath = process.env.TRAILPROOF_CHROMIUM ?? '/usr/bin/chromium';
const unknownToken = 'tp_0123456789abcdef_0123456789012345678901234567890123456789012';

/** A GET through the proxy from the local address `from`, trusting its self-signed certificate. */
function viaProxy(proxy: NginxProxy, path: string, token: string, from: string): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${proxy.url}${path}`,
      { rejectUnauthorized: false, localAddress: from, agent: false, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume().once('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
      },
    );
    req.once('error', reject).end();
  });
}

describe('hostile clients: the console behind an HTTPS proxy (nginx)', function () {
  this.timeout(180_000);
  let browser: Browser;
  before(async function () {
    if (!existsSync(nginxPath)) {
      console.warn(`    skipped: no nginx at ${nginxPath} (bash scripts/ensure-nginx.sh installs it)`);
      return this.skip();
    }
    browser = await chromium.launch({ executablePath: chromiumPath });
  });
  after(() => browser?.close());

  /** A server (with `args` and `env`) and nginx in front of it; both stopped after `work`. */
  const behindProxy = async (args: string[], env: NodeJS.ProcessEnv, work: (server: ChildServer, proxy: NginxProxy) => Promise<void>) => {
    const server = await startChildServer(env, args);
    try {
      const proxy = await startNginxProxy(server.url);
      try {
        await work(server, proxy);
      } finally {
        await proxy.stop();
      }
    } finally {
      await server.close();
    }
  };

  /** Chromium signs in at the proxy's sign-in page with `token`; the page it lands on and the cookies it holds. */
  const signInThrough = async (proxy: NginxProxy, token: string) => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    await page.goto(`${proxy.url}/ui/sign-in`);
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.fill('#token', token).then(() => page.click('button[type=submit]')),
    ]);
    await page.waitForLoadState();
    return { context, page, status: answer.status(), cookies: await context.cookies() };
  };

  it('with --trust-proxy, Chromium signs in over https: a Secure cookie, and the API address the pages show is the proxy’s', async () => {
    await behindProxy(['--trust-proxy'], {}, async (server, proxy) => {
      const { context, page, status, cookies } = await signInThrough(proxy, server.token);
      try {
        expect(status, 'the sign-in POST').to.equal(303);
        expect(page.url()).to.equal(`${proxy.url}/ui/acme`);
        expect(cookies.map((c) => ({ name: c.name, secure: c.secure, httpOnly: c.httpOnly, path: c.path }))).to.deep.equal([
          { name: 'trailproof_session', secure: true, httpOnly: true, path: '/ui' },
        ]);
        // No environment yet: the overview's hint names the API's absolute address, as the browser reached it.
        expect(await page.innerText('main')).to.contain(`${proxy.url}/api/v2/environments/acme`);
        await Promise.all([page.waitForURL(/\/ui\/acme\/flows\/app$/), page.click('a:text-is("app")')]);
        expect(page.url()).to.equal(`${proxy.url}/ui/acme/flows/app`);
        await Promise.all([page.waitForURL(/\/ui\/sign-in$/), page.click('button:text("Sign out")')]);
        expect(page.url()).to.equal(`${proxy.url}/ui/sign-in`);
      } finally {
        await context.close();
      }
    });
  });

  it('without --trust-proxy, the forwarded X-Forwarded-Proto is not believed: the sign-in is refused, naming the setting', async () => {
    await behindProxy([], {}, async (server, proxy) => {
      const { context, page, status, cookies } = await signInThrough(proxy, server.token);
      try {
        expect(status).to.equal(403);
        expect(await page.innerText('main'))
          .to.contain('This form must be sent from the sign-in page of this site')
          .and.contain('trust');
        expect(cookies).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  });

  it('without --trust-proxy, a client forging X-Forwarded-Proto and -Host straight at the server is not trusted, while health answers', async () => {
    await behindProxy([], {}, async (server) => {
      const post = (origin: string, forged: Record<string, string>) =>
        fetch(`${server.url}/ui/sign-in`, {
          method: 'POST',
          redirect: 'manual',
          headers: { origin, 'content-type': 'application/x-www-form-urlencoded', ...forged },
          body: new URLSearchParams({ token: server.token }),
        });
      const { result, slowestMs } = await whileProbingHealth(server, async () => ({
        https: await post(`https://${new URL(server.url).host}`, { 'x-forwarded-proto': 'https' }),
        host: await post('http://evil.example', { 'x-forwarded-host': 'evil.example' }),
        // A plain-http sign-in that claims https gets a cookie without Secure, as the connection is.
        plain: await post(server.url, { 'x-forwarded-proto': 'https' }),
      }));
      expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
      expect(result.https.status).to.equal(403);
      expect(result.host.status).to.equal(403);
      expect(result.plain.status).to.equal(303);
      expect(result.plain.headers.get('set-cookie'))
        .to.match(/^trailproof_session=/)
        .and.not.match(/secure/i);
    });
  });

  it('with TRAILPROOF_TRUST_PROXY, failed token checks count by the address nginx saw: one client blocked, another not', async () => {
    await behindProxy([], { TRAILPROOF_TRUST_PROXY: 'true', TRAILPROOF_FAILED_TOKEN_CHECKS_PER_MINUTE: '2' }, async (server, proxy) => {
      const path = '/api/v2/environments/acme';
      const { result, slowestMs } = await whileProbingHealth(server, async () => [
        await viaProxy(proxy, path, unknownToken, '127.0.0.2'),
        await viaProxy(proxy, path, unknownToken, '127.0.0.2'),
        await viaProxy(proxy, path, server.token, '127.0.0.2'),
      ]);
      expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
      expect(result.map((r) => r.status)).to.deep.equal([401, 401, 429]);
      expect(Number(result[2]!.retryAfter)).to.be.within(1, 30);
      expect((await viaProxy(proxy, path, server.token, '127.0.0.3')).status).to.equal(200);
    });
  });
});
