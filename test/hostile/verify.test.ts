// @database
/**
 * Verification under a hostile client (issue 30, item 2): verifying an organisation reads all
 * of its evidence and hashes every attachment, which must not hold other requests, and a
 * read-only token repeating it must not stack verifications up: one at a time per organisation,
 * the others answered 429 with `Retry-After`.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '@trailproof/server/testing';
import { whileProbingHealth } from './health-probe.ts';

/**
 * 100 attestations, each with an attachment of 10 MB (the largest accepted): 4 different ones, so
 * that the database holds 40 MB while verification hashes 400 MB (it hashes every record's
 * attachment). Stored through the store, as the API stores them, to keep the test quick.
 */
const attestationCount = 40;
const attachments = Array.from({ length: 4 }, () => randomBytes(10 * 1024 * 1024));

describe('hostile clients: verifying the evidence', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    const begun = await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 'build-1' }) } });
    expect(begun.status).to.equal(201);
    const organizationId = Number((await server.store.findOrganization('acme'))!.id);
    for (let i = 0; i < attestationCount; i++) {
      const stored = await server.store.appendAttestation({
        organizationId,
        flow: 'app',
        trail: 'build-1',
        name: `scan-${i}`,
        type: 'generic',
        dataJson: JSON.stringify({ attestation_name: `scan-${i}` }),
        artifactFingerprint: null,
        attachment: { content: attachments[i % attachments.length]!, name: `scan-${i}.bin` },
        compliant: true,
        createdBy: null,
        at: Date.now() / 1000,
      });
      expect(stored).to.have.property('id');
    }
  });
  after(() => server.close());

  const verify = () => server.request('GET', '/api/v2/verify/acme', { token: server.readToken });

  it('health answers within 1 s while verification hashes 400 MB of attachments', async () => {
    const { result, slowestMs } = await whileProbingHealth(server, verify);
    expect(slowestMs, 'the slowest health probe (ms)').to.be.below(1000);
    expect(result.status).to.equal(200);
    expect(result.body).to.include({ org: 'acme', ok: true, records: attestationCount + 1, first_broken: null });
  });

  it('one verification at a time per organisation: the others are 429 with Retry-After', async () => {
    const answers = await Promise.all([verify(), verify(), verify()]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).to.deep.equal([200, 429, 429]);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
      expect(refused.body.message).to.match(/^A verification of this organisation is already running: retry in \d+ s$/);
      expect(refused.body.errors).to.deep.equal({ org: 'is being verified' });
    }
    // Another organisation is not held up by acme's, and acme's next one runs once the first has ended.
    const [acme, globex] = await Promise.all([verify(), server.request('GET', '/api/v2/verify/globex', { token: server.otherToken })]);
    expect([acme.status, globex.status]).to.deep.equal([200, 200]);
  });

  it("the console's integrity page counts against the same limit as the API", async () => {
    const signedIn = await fetch(`${server.url}/ui/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: server.readToken }),
    });
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const integrity = () => fetch(`${server.url}/ui/acme/integrity?run=1`, { headers: { cookie } });
    // Sent at once, whichever starts first holds the organisation's one verification and the other meets it.
    const [api, page] = await Promise.all([verify(), integrity()]);
    const pageText = await page.text();
    expect([api.status, page.status].sort(), 'one runs, the other is refused').to.deep.equal([200, 429]);
    const refusal = api.status === 429 ? String(api.body.message) : pageText;
    expect(refusal).to.include('A verification of this organisation is already running');
    // Once that one has ended, the page runs its own.
    expect((await integrity()).status).to.equal(200);
  });
});
