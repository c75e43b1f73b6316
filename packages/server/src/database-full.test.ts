/**
 * A database with no room left (a full disk; here a SQLite file at its `maxSizeBytes`): writes that
 * do not fit answer 507 and store nothing, those acknowledged are stored, reads go on.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startTestServer, testBackend, type TestServer } from '@trailproof/server/testing';

describe('a database with no room left (SQLite at its maxSizeBytes)', () => {
  let server: TestServer;
  before(async function () {
    if (testBackend !== 'sqlite') return this.skip(); // a full PostgreSQL disk cannot be made here
    server = await startTestServer({ sqlite: { maxSizeBytes: 4 * 1024 * 1024 } });
    const begun = await server.request('PUT', '/api/v2/trails/acme/backend', { form: { data_json: JSON.stringify({ name: 'build-1' }) } });
    expect(begun.status).to.equal(201);
  });
  after(() => server?.close());

  const attest = (name: string, bytes: number) => server.request('POST', '/api/v2/attestations/acme/backend/trail/build-1/generic', {
    form: { data_json: JSON.stringify({ attestation_name: name, is_compliant: true }), attachment_file: { content: randomBytes(bytes), name: `${name}.bin` } },
  });

  it('answers 507 to the writes that do not fit, stores every write it acknowledged and none it refused, and goes on reading', async () => {
    // 24 attachments of 256KB, 8 at a time (they share batches on the writer thread), into 4MB.
    const answers: Array<{ name: string; status: number; message?: string }> = [];
    for (let round = 0; round < 3; round++) {
      const names = Array.from({ length: 8 }, (_, i) => `a${round * 8 + i}`);
      const results = await Promise.all(names.map((name) => attest(name, 256 * 1024)));
      results.forEach((res, i) => answers.push({ name: names[i]!, status: res.status, message: res.body?.message }));
    }
    const acknowledged = answers.filter((a) => a.status === 201).map((a) => a.name);
    const refused = answers.filter((a) => a.status !== 201);
    expect(acknowledged.length, 'some fit').to.be.greaterThan(3);
    expect(refused.length, 'some do not').to.be.greaterThan(3);
    for (const answer of refused) {
      expect(answer.status, JSON.stringify(answer)).to.equal(507);
      expect(answer.message).to.match(/^Insufficient storage: the database is full, and nothing of this request was stored \(request [0-9a-f-]+\)$/);
    }
    const stored = (await server.attestations('backend', 'build-1')).map((a) => a.name);
    expect([...stored].sort()).to.deep.equal([...acknowledged].sort());

    // Reads go on, and the health check (which reads) says the process serves.
    const trail = await server.request('GET', '/api/v2/trails/acme/backend/build-1');
    expect(trail.status).to.equal(200);
    expect((await server.request('GET', '/api/v2/health', { token: null })).status).to.equal(200);
    // A stored attachment reads back whole.
    const first = await server.request('GET', `/api/v2/trails/acme/backend/build-1/attestations/${trail.body.attestations?.[0]?.attestation_id ?? ''}/attachment`);
    expect(first.status).to.equal(200);
    expect(first.bytes.length).to.equal(256 * 1024);
  });
});
