// @database
/**
 * Console sign-in through a real OpenID provider (oidc-provider, in this process on loopback) in
 * Chromium: a sign-in per role and what each role may do, the review recorded as the identity
 * the provider vouched for, and the sign-ins that must fail (an ID token of another issuer, an
 * expired one, a replayed code, a person whose group was removed). One provider, one browser.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Provider from 'oidc-provider';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '@trailproof/server/testing';

const chromiumPath = process.env.TRAILPROOF_CHROMIUM ?? '/usr/bin/chromium';
const F1 = 'a'.repeat(64);

/** The people the provider knows, by login: their groups (`org:role`) may change during the tests. */
const people: Record<string, { email: string; groups: string[] }> = {
  ada: { email: 'ada@example.com', groups: ['acme:admin'] },
  bob: { email: 'bob@example.com', groups: ['acme:member', 'globex:reader'] },
  cy: { email: 'cy@example.com', groups: ['acme:reader'] },
  dee: { email: 'dee@example.com', groups: ['acme:member'] },
};

/** How the provider's token endpoint changes the ID token it sends, for the sign-ins that must fail. */
let idTokenChange: Record<string, unknown> | null = null;

/** `jwt` with its claims changed, signed again with the provider's own key: only the change makes it wrong. */
function resigned(jwt: string, change: Record<string, unknown>, key: KeyObject): string {
  const [header, payload] = jwt.split('.') as [string, string];
  const claims = { ...JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), ...change };
  const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

describe('console sign-in through an OpenID provider, in a browser', function () {
  this.timeout(180_000);
  let server: TestServer;
  let browser: Browser;
  let providerHttp: Server;
  let issuer: string;

  before(async () => {
    // The provider's port first (the server needs the issuer), the provider itself once the server's URL (its redirect URI) is known.
    let handle: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void = (_req, res) => res.end();
    providerHttp = createServer((req, res) => handle(req, res));
    await new Promise<void>((resolve) => providerHttp.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(providerHttp.address() as AddressInfo).port}`;
    server = await startTestServer({
      server: {
        console: {
          oidc: {
            issuer,
            clientId: 'trailproof',
            clientSecret: 'a-secret-of-the-test-provider',
            mapping: { kind: 'groups', claim: 'groups', prefix: '' },
            extraScopes: ['groups'],
            label: 'Example SSO',
          },
        },
      },
    });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test', alg: 'RS256', use: 'sig' };
    const provider = new Provider(issuer, {
      clients: [{ client_id: 'trailproof', client_secret: 'a-secret-of-the-test-provider', redirect_uris: [`${server.url}/ui/sign-in/oidc/callback`] }],
      jwks: { keys: [jwk] },
      cookies: { keys: ['cookie-key-of-the-test-provider'] },
      scopes: ['openid', 'email', 'profile', 'groups'],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
      conformIdTokenClaims: false,
      ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600 },
      findAccount: (_ctx, id) => ({
        accountId: id,
        claims: () => ({ sub: id, email: people[id]?.email ?? `${id}@example.com`, email_verified: true, groups: people[id]?.groups ?? [] }),
      }),
      // Consent given at once: the tests sign in, they do not test the provider's consent page.
      async loadExistingGrant(ctx) {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
        grant.addOIDCScope('openid email profile groups');
        grant.addOIDCClaims(['email', 'email_verified', 'groups']);
        await grant.save();
        return grant;
      },
    });
    provider.use(async (ctx, next) => {
      await next();
      const body = ctx.body as { id_token?: string } | undefined;
      if (ctx.path === '/token' && idTokenChange && body?.id_token) body.id_token = resigned(body.id_token, idTokenChange, privateKey);
    });
    handle = provider.callback();
    browser = await chromium.launch({ executablePath: chromiumPath });
    await server.request('PUT', '/api/v2/environments/acme', { json: { name: 'production', type: 'K8S' } });
    await server.request('PUT', '/api/v2/trails/acme/payments', {
      form: { data_json: JSON.stringify({ name: 'build-1', git_commit_info: { sha1: '1'.repeat(40), branch: 'main' } }) },
    });
    const approval = await server.request('POST', '/api/v2/approvals/acme/payments', {
      json: { artifact_fingerprint: F1, description: 'Release 1', src_commit_list: ['1'.repeat(40)], environment: 'production' },
    });
    expect(approval.status, JSON.stringify(approval.body)).to.equal(201);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => providerHttp?.close(resolve));
  });
  afterEach(() => {
    idTokenChange = null;
  });

  /** Signs `login` in at the provider from the console's sign-in page, in a context of its own; the page where the browser lands. */
  const signIn = async (login: string, context?: BrowserContext, atProvider?: (context: BrowserContext) => Promise<void>) => {
    context ??= await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/ui/sign-in`);
    await page.click('#sign-in-oidc');
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any');
    await atProvider?.(context);
    // Back on the server: the callback, or where it sent the browser.
    const origin = new URL(server.url).origin;
    await Promise.all([page.waitForURL((url) => url.origin === origin), page.click('button[type=submit]')]);
    return { page, context };
  };
  const viewer = (page: Page) => page.innerText('header .viewer');
  /** The admin's browser, signed in by the first test and used again by the last (a sign-in less). */
  let admin: { page: Page; context: BrowserContext };
  const approvalPage = `/ui/acme/flows/payments/approvals/1`;

  it('offers both ways on the sign-in page; an admin signs in, is shown as such and sees who is signed in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/ui/sign-in`);
    expect(await page.innerText('#sign-in-oidc')).to.equal('Sign in with Example SSO');
    expect(await page.locator('#token').count()).to.equal(1);
    admin = await signIn('ada', context);
    const home = admin.page;
    expect(new URL(home.url()).pathname).to.equal('/ui/acme');
    expect(await viewer(home)).to.equal('ada@example.com admin');
    await home.click('nav a[href$="/people"]');
    expect(await home.innerText('main table'))
      .to.contain('ada@example.com')
      .and.contain('admin');
  });

  it('a member reviews an approval and is recorded as the identity the provider vouched for, not a name the form sent', async () => {
    const { page, context } = await signIn('bob');
    expect(await viewer(page)).to.equal('bob@example.com member');
    await page.goto(`${server.url}${approvalPage}`);
    // A name slipped into the form is not taken: the reviewer is the session's person.
    await page.evaluate(() => {
      const field = document.createElement('input');
      Object.assign(field, { type: 'hidden', name: 'approved_by', value: 'mallory' });
      document.querySelector('form.review')!.append(field);
    });
    await page.fill('#review-comment', 'Looks good');
    await Promise.all([page.waitForURL(`${server.url}${approvalPage}`), page.click('form.review button[value=APPROVED]')]);
    expect(await page.innerText('table.reviews'))
      .to.contain('bob@example.com')
      .and.contain('Looks good');
    const stored = await server.request('GET', '/api/v2/approvals/acme/payments/1');
    expect(stored.body.state).to.equal('APPROVED');
    expect(stored.body.approvals.map((r: { approved_by: string }) => r.approved_by)).to.deep.equal(['bob@example.com']);
    // Not an admin: the people page is refused.
    const people = await page.goto(`${server.url}/ui/acme/people`);
    expect(people!.status()).to.equal(403);
    await context.close();
  });

  it('a reader reads the approval, is offered no review, and a review sent anyway is refused with nothing stored', async () => {
    const { page, context } = await signIn('cy');
    expect(await viewer(page)).to.equal('cy@example.com reader');
    await page.goto(`${server.url}${approvalPage}`);
    expect(await page.locator('form.review').count()).to.equal(0);
    expect(await page.innerText('main')).to.contain('Your role, reader, reads approvals');
    const status = await page.evaluate(async (action) => {
      const res = await fetch(action, { method: 'POST', body: new URLSearchParams({ state: 'UNAPPROVED', comment: 'veto' }) });
      return res.status;
    }, `${server.url}${approvalPage}/review`);
    expect(status).to.equal(403);
    const stored = await server.request('GET', '/api/v2/approvals/acme/payments/1');
    expect(stored.body.approvals.map((r: { approved_by: string }) => r.approved_by)).to.not.include('cy@example.com');
    expect(stored.body.state).to.not.equal('UNAPPROVED');
    await context.close();
  });

  it('refuses an ID token of another issuer, and an expired one, and opens no session', async () => {
    for (const [change, words] of [
      [{ iss: 'http://127.0.0.1:1/not-the-provider' }, /"iss" \(issuer\)/],
      [{ exp: Math.floor(Date.now() / 1000) - 3600, iat: Math.floor(Date.now() / 1000) - 7200 }, /"exp" \(expiration time\)/],
    ] as const) {
      idTokenChange = change;
      const { page, context } = await signIn('bob');
      expect(new URL(page.url()).pathname).to.equal('/ui/sign-in/oidc/callback');
      const alert = await page.innerText('[role=alert]');
      expect(alert).to.match(/refused/);
      expect(alert, alert).to.match(words);
      const home = await page.goto(`${server.url}/ui/acme`);
      expect(new URL(home!.url()).pathname, 'no session').to.equal('/ui/sign-in');
      await context.close();
    }
  });

  it('refuses a replayed code: the callback again in the same browser, and with the sign-in cookie restored', async () => {
    const context = await browser.newContext();
    let callback = '';
    context.on('request', (req) => {
      if (req.url().includes('/sign-in/oidc/callback')) callback = req.url();
    });
    let transactionCookie = '';
    await signIn('bob', context, async () => {
      const cookies = await context.cookies(`${server.url}/ui/sign-in/oidc/callback`);
      transactionCookie = cookies.find((c) => c.name === 'trailproof_oidc')?.value ?? '';
    });
    expect(transactionCookie).to.not.equal('');
    expect(callback).to.match(/code=/);
    const again = await context.newPage();
    const res = await again.goto(callback);
    expect(res!.status()).to.equal(400);
    expect(await again.innerText('[role=alert]')).to.contain('already used');
    // An attacker holding both the callback and the sign-in cookie: the provider takes a code once.
    const other = await browser.newContext();
    await other.addCookies([{ name: 'trailproof_oidc', value: transactionCookie, url: `${server.url}/ui/sign-in/oidc/callback` }]);
    const replay = await other.newPage();
    const replayed = await replay.goto(callback);
    expect(replayed!.status()).to.equal(401);
    expect(await replay.innerText('[role=alert]')).to.match(/refused/);
    expect((await other.cookies()).map((c) => c.name)).to.not.include('trailproof_session');
    await Promise.all([context.close(), other.close()]);
  });

  it("ends a person's sessions at their next sign-in once the group is removed, and when an admin ends them", async () => {
    const first = await signIn('dee');
    expect(await viewer(first.page)).to.equal('dee@example.com member');
    people.dee!.groups = [];
    const second = await signIn('dee');
    expect(await second.page.innerText('[role=alert]')).to.contain('gives no organisation');
    const after = await first.page.goto(`${server.url}/ui/acme`);
    expect(new URL(after!.url()).pathname, 'the earlier session ended').to.equal('/ui/sign-in');
    // Back in the group; then an admin ends the session from the people page.
    people.dee!.groups = ['acme:member'];
    const third = await signIn('dee');
    await admin.page.goto(`${server.url}/ui/acme/people`);
    const row = admin.page.locator('tr', { hasText: 'dee@example.com' });
    await Promise.all([admin.page.waitForURL(`${server.url}/ui/acme/people`), row.locator('button').click()]);
    expect(await admin.page.innerText('main')).to.not.contain('dee@example.com');
    const ended = await third.page.goto(`${server.url}/ui/acme`);
    expect(new URL(ended!.url()).pathname).to.equal('/ui/sign-in');
    await Promise.all([first.context.close(), second.context.close(), third.context.close(), admin.context.close()]);
  });
});
