// @database
/** `trailproof serve` on SIGTERM: the request in flight is finished, the process exits 0 and the database stays consistent. */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { openStore } from '@trailproof/server';
import { call, commandFixture, run } from '../../../../test/support/cli-command.ts';

describe('the trailproof command', function () {
  this.timeout(120_000);
  let dir = '';
  let db = '';
  const start = commandFixture((place) => ({ dir, db } = place));

  it('on SIGTERM finishes the request in flight, exits 0 and leaves the database consistent', async () => {
    const token = (await run(['token', 'create', '--org', 'acme', '--database', db])).stdout.trim();
    const s = await start(['--database', db, '--port', '0']);
    expect((await call(s.url, token, 'PUT', '/api/v2/trails/acme/app', { data_json: JSON.stringify({ name: 'build-1' }) })).status).to.equal(201);

    // A 9MB attachment sent slowly: SIGTERM arrives after the headers and the first megabyte.
    const attachment = Buffer.alloc(9 * 1024 * 1024, 7);
    const boundary = 'trailproofboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n${JSON.stringify({ attestation_name: 'slow', junit_results: [] })}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="attachment_file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Buffer.concat([head, attachment, tail]);
    const url = new URL(`${s.url}/api/v2/attestations/acme/app/trail/build-1/junit`);
    const answer = new Promise<{ status: number; body: string; connection?: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
        },
        (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (c) => (text += c))
            .on('end', () => resolve({ status: res.statusCode!, body: text, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      void (async () => {
        const chunk = 1024 * 1024;
        req.write(body.subarray(0, chunk));
        await sleep(1000);
        s.child.kill('SIGTERM');
        for (let at = chunk; at < body.length; at += chunk) {
          await sleep(100);
          req.write(body.subarray(at, at + chunk));
        }
        req.end();
      })();
    });
    const response = await answer;
    expect(response.status, response.body).to.equal(201);
    expect(JSON.parse(response.body)).to.contain('slow');
    // the answer ends the keep-alive connection, so the process need not wait for it to idle out
    expect(response.connection).to.equal('close');
    const answeredAt = Date.now();
    expect(await s.exited).to.equal(0);
    expect(Date.now() - answeredAt).to.be.below(3000);
    const messages = s.lines.map((l) => l.msg);
    expect(messages).to.include.members(['shutting down', 'stopped']);
    expect(messages.indexOf('stopped')).to.be.above(messages.lastIndexOf('request'));
    expect(s.lines.find((l) => l.msg === 'shutting down')!.signal).to.equal('SIGTERM');

    const store = await openStore(db);
    try {
      const org = (await store.findOrganization('acme'))!;
      const trail = (await store.findTrail(Number(org.id), 'app', 'build-1'))!;
      const [attestation] = await store.listAttestations(trail.id);
      expect(attestation!.name).to.equal('slow');
      expect(attestation!.attachmentSha256).to.equal(createHash('sha256').update(attachment).digest('hex'));
      expect(Buffer.from((await store.getBlob(attestation!.attachmentSha256!))!.content).equals(attachment)).to.equal(true);
      const chain = await store.verifyChain(Number(org.id), 'acme');
      expect(chain.ok).to.equal(true);
      expect(chain.records).to.equal(2); // the trail begin and the attestation
    } finally {
      await store.close();
    }
  });
});
