// @database
/**
 * Guessing tokens (issue 46, 10b): failed token checks, on the API and at the console's sign-in,
 * had no limit. Now one client address may fail a budget of them a minute; beyond it its token
 * checks answer 429 with Retry-After, in the error shape, before the token is looked at. Other
 * addresses (127.0.0.2 on loopback) still sign in. X-Forwarded-For moves the count only when the
 * server trusts a proxy, and then only its last address, the one the proxy added.
 */
import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { whileProbingHealth } from './health-probe.ts';

/** A token of the right form that no server issued. */
const unknownToken = 'tp_0123456789abcdef_0123456789012345678901234567890123456789012';
const budget = 3;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request from the local address `from` (any of 127.0.0.0/8 on Linux). */
function send(url: string, o: { from?: string; method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${o.path}`, { method: o.method ?? 'GET', localAddress: o.from ?? '127.0.0.1', headers: o.headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(o.body);
  });
}

const apiGet = (server: TestServer, token: string, from?: string, headers: Record<string, string> = {}) =>
  send(server.url, { from, path: '/api/v2/environments/acme', headers: { authorization: `Bearer ${token}`, ...headers } });

const signIn = (server: TestServer, token: string, from?: string) =>
  send(server.url, {
    from,
    method: 'POST',
    path: '/ui/sign-in',
    headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: String(new URLSearchParams({ token })),
  });

describe('hostile clients: guessing tokens', function () {
  this.timeout(60_000);
  let server: TestServer;
  beforeEach(async () => (server = await startTestServer({ server: { failedTokenChecksPerMinute: budget } })));
  afterEach(() => server.close());

  it('answers 429 with Retry-After in the error shape once an address spent its failures, while health answers', async () => {
    const { result: statuses, slowestMs } = await whileProbingHealth(server, async () => {
      const seen: number[] = [];
      for (let i = 0; i < budget; i++) seen.push((await apiGet(server, unknownToken)).status);
      return seen;
    });
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(statuses).to.deep.equal([401, 401, 401]);
    const refused = await apiGet(server, unknownToken);
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60 / budget);
    const body = JSON.parse(refused.text) as { message: string; errors: Record<string, string> };
    expect(body.message).to.match(/^Too many failed token checks from this address: try again in \d+ s$/);
    expect(body.errors).to.have.property('authorization').that.is.a('string');
    // Refused before the token is looked at: a right guess now would not be recognised either.
    expect((await apiGet(server, server.token)).status).to.equal(429);
  });

  it("leaves another address's tokens and sign-ins alone, and counts its failures apart", async () => {
    for (let i = 0; i <= budget; i++) await apiGet(server, unknownToken);
    expect((await apiGet(server, unknownToken)).status).to.equal(429);
    expect((await apiGet(server, server.token, '127.0.0.2')).status).to.equal(200);
    const signedIn = await signIn(server, server.token, '127.0.0.2');
    expect(signedIn.status).to.equal(303);
    expect(String(signedIn.headers['set-cookie'])).to.match(/^trailproof_session=/);
    expect((await apiGet(server, unknownToken, '127.0.0.2')).status, 'its own first failure').to.equal(401);
  });

  it("limits the console's sign-in form, sharing the count with the API, and says so on the form", async () => {
    for (let i = 0; i < budget - 1; i++) expect((await signIn(server, unknownToken)).status).to.equal(401);
    expect((await apiGet(server, unknownToken)).status).to.equal(401);
    const refused = await signIn(server, server.token);
    expect(refused.status, refused.text.slice(0, 400)).to.equal(429);
    expect(refused.headers['retry-after']).to.match(/^\d+$/);
    expect(refused.headers['set-cookie']).to.equal(undefined);
    expect(refused.text).to.contain('Too many failed token checks from this address');
    expect((await signIn(server, server.token, '127.0.0.3')).status).to.equal(303);
  });

  it('counts a request without a token, or with a token of another organisation, as no failure', async () => {
    for (let i = 0; i < budget + 2; i++) {
      expect((await send(server.url, { path: '/api/v2/environments/acme' })).status).to.equal(401);
      expect((await apiGet(server, server.otherToken)).status).to.equal(403);
    }
    expect((await apiGet(server, server.token)).status).to.equal(200);
  });

  it('ignores X-Forwarded-For when no proxy is trusted: a new forged address each time gets no new budget', async () => {
    for (let i = 0; i < budget; i++) await apiGet(server, unknownToken, undefined, { 'x-forwarded-for': `198.51.100.${i}` });
    expect((await apiGet(server, unknownToken, undefined, { 'x-forwarded-for': '198.51.100.200' })).status).to.equal(429);
  });

  it("behind a trusted proxy counts X-Forwarded-For's last address, not the ones a client put before it", async () => {
    await server.close();
    server = await startTestServer({ server: { failedTokenChecksPerMinute: budget, proxy: true } });
    // What a proxy that appends the address it saw (nginx's $proxy_add_x_forwarded_for) forwards.
    const via = (client: string, forged = '') => ({ 'x-forwarded-for': `${forged}${client}` });
    for (let i = 0; i < budget; i++) expect((await apiGet(server, unknownToken, undefined, via('203.0.113.7', `192.0.2.${i}, `))).status).to.equal(401);
    expect((await apiGet(server, unknownToken, undefined, via('203.0.113.7', '192.0.2.99, '))).status).to.equal(429);
    // Every client comes from the proxy's own address: others are not blocked with it.
    expect((await apiGet(server, server.token, undefined, via('203.0.113.8'))).status).to.equal(200);
  });
});
