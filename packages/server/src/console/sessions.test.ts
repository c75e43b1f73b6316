// @database
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';

/** HTTP-level checks of signing in and out; console.browser.test.ts walks the pages in Chromium. */
describe('console sessions', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  const get = (path: string, cookie?: string) => fetch(server.url + path, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = { origin: server.url }) =>
    fetch(server.url + path, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form),
    });
  const signIn = async (token: string) => {
    const res = await post('/ui/sign-in', { token });
    expect(res.status).to.equal(303);
    return res.headers.get('set-cookie')!.split(';')[0]!;
  };

  it('sends a signed-out browser to the sign-in page, remembering where it was going; / leads to /ui', async () => {
    const root = await get('/');
    expect([root.status, root.headers.get('location')]).to.deep.equal([302, '/ui']);
    const page = await get('/ui/acme?page=2');
    expect(page.status).to.equal(303);
    expect(page.headers.get('location')).to.equal('/ui/sign-in?next=%2Fui%2Facme%3Fpage%3D2');
    expect(page.headers.get('content-security-policy')).to.contain("script-src 'self'").and.contain("frame-ancestors 'none'");
  });

  it('opens a session in an HttpOnly, SameSite=Strict cookie that carries no token, and goes on to the page asked for', async () => {
    const res = await post('/ui/sign-in', { token: server.readToken, next: '/ui/acme?x=1' });
    expect([res.status, res.headers.get('location')]).to.deep.equal([303, '/ui/acme?x=1']);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie)
      .to.match(/^trailproof_session=[A-Za-z0-9_-]{43}; path=\/ui; expires=/)
      .and.match(/samesite=strict/i)
      .and.match(/httponly/i);
    // The secret is everything after `tp_<id>_` (it may hold '_' itself).
    expect(cookie).not.to.contain(server.readToken.slice('tp_'.length + 16 + 1));
    const page = await get('/ui/acme', cookie.split(';')[0]);
    expect(page.status).to.equal(200);
    expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(page.headers.get('referrer-policy')).to.equal('same-origin');
    expect(await page.text()).not.to.contain(server.readToken);
  });

  it('refuses a sign-in or sign-out from another origin or none, and a wrong token with the form again', async () => {
    expect((await post('/ui/sign-in', { token: server.token }, { origin: 'https://evil.example' })).status).to.equal(403);
    expect((await post('/ui/sign-in', { token: server.token }, {})).status).to.equal(403);
    const wrong = await post('/ui/sign-in', { token: 'tp_0123456789abcdef_0123456789012345678901234567890123456789012' });
    expect(wrong.status).to.equal(401);
    expect(wrong.headers.get('set-cookie')).to.equal(null);
    expect(await wrong.text()).to.contain('That token is not valid');
    const cookie = await signIn(server.token);
    expect((await post('/ui/sign-out', {}, { origin: 'https://evil.example', cookie })).status).to.equal(403);
    expect((await get('/ui/acme', cookie)).status).to.equal(200);
  });

  it('goes only to console paths after signing in, never to another site', async () => {
    for (const next of ['https://evil.example/', '//evil.example/ui/', '/api/v2/environments/acme', '/ui\\@evil']) {
      const res = await post('/ui/sign-in', { token: server.token, next });
      expect(res.headers.get('location'), next).to.equal('/ui/acme');
    }
  });

  it("answers another organisation's pages 404, like pages that do not exist", async () => {
    const cookie = await signIn(server.otherToken);
    const other = await get('/ui/acme', cookie);
    const unknown = await get('/ui/nobody', cookie);
    expect([other.status, unknown.status]).to.deep.equal([404, 404]);
    const strip = (html: string) => html.replace(/nobody|acme/g, '');
    expect(strip(await other.text())).to.equal(strip(await unknown.text()));
    expect((await get('/ui/globex', cookie)).status).to.equal(200);
  });

  it('ends the session at sign-out, and when its token is revoked', async () => {
    const cookie = await signIn(server.token);
    const out = await post('/ui/sign-out', {}, { origin: server.url, cookie });
    expect([out.status, out.headers.get('location')]).to.deep.equal([303, '/ui/sign-in']);
    expect((await get('/ui/acme', cookie)).status).to.equal(303);

    const { createToken } = await import('@trailproof/server');
    const { id, token } = await createToken(server.store, { org: 'acme', readOnly: true });
    const revoked = await signIn(token);
    expect((await get('/ui/acme', revoked)).status).to.equal(200);
    await server.store.revokeToken(id, Date.now() / 1000);
    const after = await get('/ui/acme', revoked);
    expect([after.status, after.headers.get('location')]).to.deep.equal([303, '/ui/sign-in?next=%2Fui%2Facme']);
    expect(after.headers.get('set-cookie')).to.match(/^trailproof_session=;/);
  });

  it('removes an ended session from the store, and writes nothing for a made-up cookie', async () => {
    const deleted: string[] = [];
    const original = server.store.deleteConsoleSession;
    server.store.deleteConsoleSession = (idSha256, at) => (deleted.push(idSha256), original.call(server.store, idSha256, at));
    try {
      const madeUp = await get('/ui/acme', `trailproof_session=${'A'.repeat(43)}`);
      expect(madeUp.status).to.equal(303);
      expect(madeUp.headers.get('set-cookie')).to.match(/^trailproof_session=;/);
      expect(deleted, 'a cookie no session has').to.deep.equal([]);

      const { createToken } = await import('@trailproof/server');
      const { id, token } = await createToken(server.store, { org: 'acme', readOnly: true });
      const cookie = await signIn(token);
      await server.store.revokeToken(id, Date.now() / 1000);
      expect((await get('/ui/acme', cookie)).status).to.equal(303);
      expect(deleted, "the revoked token's session").to.have.length(1);
      expect((await get('/ui/acme', cookie)).status, 'and it stays ended').to.equal(303);
      expect(deleted, 'removed once: a second visit finds no row').to.have.length(1);
    } finally {
      server.store.deleteConsoleSession = original;
    }
  });

  it('marks the cookie Secure behind a trusted proxy that says https, and only then', async () => {
    const proxied = await startTestServer({ server: { proxy: true } });
    try {
      const signIn = (headers: Record<string, string>) =>
        fetch(`${proxied.url}/ui/sign-in`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams({ token: proxied.token }),
        });
      const host = new URL(proxied.url).host;
      const https = await signIn({ 'x-forwarded-proto': 'https', origin: `https://${host}` });
      expect(https.status).to.equal(303);
      expect(https.headers.get('set-cookie')).to.match(/; secure/i);
      const plain = await signIn({ origin: proxied.url });
      expect(plain.headers.get('set-cookie')).not.to.match(/; secure/i);
    } finally {
      await proxied.close();
    }
    // Not trusted: the header changes nothing, and the page's origin stays http.
    const untrusted = await post('/ui/sign-in', { token: server.token }, { 'x-forwarded-proto': 'https', origin: server.url });
    expect(untrusted.headers.get('set-cookie')).not.to.match(/; secure/i);
  });

  it('does not take a cookie of one server on another database', async () => {
    const cookie = await signIn(server.token);
    const other = await startTestServer();
    try {
      const res = await fetch(`${other.url}/ui/acme`, { redirect: 'manual', headers: { cookie } });
      expect(res.status).to.equal(303);
    } finally {
      await other.close();
    }
  });
});
