// @database
/**
 * Hostile and careless uploads (issue 30, items 7, 8, 9, 11): refused uploads whose client still
 * sends, `Expect: 100-continue`, long file names, clients that abort half-way. On SQLite and
 * on PostgreSQL (TRAILPROOF_TEST_DATABASE).
 */
import { expect } from 'chai';
import { startTestServer, waitUntil, type TestServer } from '@trailproof/server/testing';
import type { Logger } from '@trailproof/server';
import { runCli } from '../support/processes.ts';
import { startChildServer, type ChildServer } from './child-server.ts';
import { abortHalfWay, dataJson, expectContinue, generic, uploadForm } from './upload-requests.ts';

/** A logger that keeps every entry, with its level, for the test to read. */
function recordingLogger(): Logger & { entries: Array<Record<string, unknown>> } {
  const entries: Array<Record<string, unknown>> = [];
  return { entries, info: (e) => entries.push({ level: 'info', ...e }), error: (e) => entries.push({ level: 'error', ...e }) };
}

async function beginTrail(server: TestServer) {
  expect((await server.request('PUT', '/api/v2/flows/acme', { json: { name: 'app' } })).status).to.be.oneOf([200, 201]);
  expect((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 't1' }) } })).status).to.equal(201);
}

describe('hostile uploads: a refused upload, against a server process', function () {
  this.timeout(60_000);
  let server: ChildServer;
  before(async () => (server = await startChildServer()));
  after(() => server?.close());

  it('answers a refused 2 MB upload so that fetch reads the 401 or 403, every time (no EPIPE)', async () => {
    const readOnly = (await runCli(['token', 'create', '--org', 'acme', '--read-only', ...server.database])).trim();
    const cases = [
      { token: 'tp_0000000000000000_notAValidSecretButShapedLikeOneAtAll0123456', status: 401 },
      { token: readOnly, status: 403 },
    ];
    for (const { token, status } of cases) {
      for (let attempt = 0; attempt < 20; attempt++) {
        const response = await fetch(server.url + generic, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: uploadForm(2 * 1024 * 1024),
        }).catch((error: Error) => ({ status: `${error.message}: ${String((error.cause as Error | undefined)?.message)}` }) as const);
        expect(response.status, `try ${attempt + 1}`).to.equal(status);
        const body = (await (response as Response).json()) as { message: string };
        expect(body.message).to.be.a('string');
      }
    }
  });
});

describe('hostile uploads', function () {
  this.timeout(60_000);
  let server: TestServer;
  const logger = recordingLogger();

  before(async () => {
    server = await startTestServer({ server: { logger } });
    await beginTrail(server);
  });
  after(() => server?.close());

  it('checks the token and the declared size before answering 100 Continue', async () => {
    const refused = await expectContinue(server.url, 'Bearer nonsense', 2 * 1024 * 1024);
    expect(refused, 'a bad token').to.deep.include({ continued: false, status: 401 });
    const tooLarge = await expectContinue(server.url, `Bearer ${server.token}`, 50 * 1024 * 1024);
    expect(tooLarge, 'a body over the limit').to.deep.include({ continued: false, status: 413 });
    const accepted = await expectContinue(server.url, `Bearer ${server.token}`, 0);
    expect(accepted, 'a good token').to.deep.include({ continued: true, status: 201 });
  });

  it('refuses a file name over 255 bytes with a 400 naming the part; 255 are kept', async () => {
    const long = await fetch(server.url + generic, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
      body: uploadForm(10, 'é'.repeat(128) + '.xml'),
    });
    expect(long.status).to.equal(400);
    const body = (await long.json()) as { errors: Record<string, string> };
    expect(body.errors.attachment_file).to.match(/file name may be at most 255 bytes/);
    const fits = await fetch(server.url + generic, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
      body: uploadForm(10, 'a'.repeat(251) + '.xml'),
    });
    expect(fits.status).to.equal(201);
  });

  it('downloads an attachment stored under a 3,000-character name with a short Content-Disposition, nosniff', async () => {
    // Stored before names were capped: written through the store, as the API now refuses it.
    const organization = await server.store.findOrganization('acme');
    const name = "ré'port(1)*" + 'x'.repeat(3_000) + '.xml';
    const stored = await server.store.appendAttestation({
      organizationId: organization!.id,
      flow: 'app',
      trail: 't1',
      name: 'old',
      type: 'generic',
      dataJson: JSON.stringify({ attestation_name: 'old', is_compliant: true }),
      artifactFingerprint: null,
      compliant: true,
      createdBy: 'test',
      at: Date.now() / 1000,
      attachment: { content: Buffer.from('evidence'), name },
    });
    expect(stored).to.not.have.property('missing');
    const rows = await server.attestations('app', 't1');
    const id = rows.find((r) => r.name === 'old')!.id;
    const response = await fetch(`${server.url}/api/v2/trails/acme/app/t1/attestations/${id}/attachment`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    expect(response.status).to.equal(200);
    expect(await response.text()).to.equal('evidence');
    expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
    const disposition = response.headers.get('content-disposition')!;
    expect(disposition.length).to.be.below(1024);
    expect(disposition).to.match(/^attachment; filename="r_'port\(1\)\*x+"; filename\*=UTF-8''r%C3%A9%27port%281%29%2Ax+$/);
    const listed = await server.request('GET', '/api/v2/trails/acme/app');
    expect(listed.headers.get('x-content-type-options'), 'every API answer').to.equal('nosniff');
  });

  it('logs a client that aborts its upload or its JSON body as a client abort, not a server fault', async () => {
    logger.entries.length = 0;
    const head = `--b\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n${dataJson}\r\n--b\r\nContent-Disposition: form-data; name="attachment_file"; filename="a.bin"\r\n\r\n`;
    await abortHalfWay(
      server.url,
      generic,
      'POST',
      server.token,
      'multipart/form-data; boundary=b',
      Buffer.concat([Buffer.from(head), Buffer.alloc(200_000, 120)]),
      2 * 1024 * 1024,
    );
    await abortHalfWay(
      server.url,
      '/api/v2/environments/acme',
      'PUT',
      server.token,
      'application/json',
      Buffer.from('{"name":"prod","type":"K8S","description":"' + 'x'.repeat(100_000)),
      500_000,
    );
    const closed = () => logger.entries.filter((e) => e.msg === 'request' && e.status === 499);
    expect(await waitUntil(() => closed().length === 2, 5_000), JSON.stringify(logger.entries)).to.equal(true);
    expect(closed().every((e) => e.client_closed === true)).to.equal(true);
    expect(
      logger.entries.filter((e) => e.level === 'error'),
      'no error lines',
    ).to.deep.equal([]);
    expect(
      logger.entries.filter((e) => typeof e.status === 'number' && e.status >= 500),
      'no 5xx',
    ).to.deep.equal([]);
    expect(logger.entries.filter((e) => e.msg === 'client closed request').map((e) => e.path)).to.have.members([generic, '/api/v2/environments/acme']);
  });
});
