// @database
/**
 * Crash safety: a real server process under concurrent attestation load (with attachments) is
 * killed with SIGKILL at random moments, twenty times. Every answer must be a 201 (only requests
 * cut off by the kill may fail, and only with a connection error); every request answered 201
 * must be fully present afterwards (attachment byte for byte), nothing half-written may be
 * visible, and the hash chain must verify with one record per stored attestation.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { expect } from 'chai';
import { openStore } from '@trailproof/server';
import { BetterSqlite3, testBackend } from '@trailproof/server/testing';
import { createChildDatabase, type ChildDatabase } from './support/child-database.ts';
import { call, runCli, startServerProcess } from './support/processes.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** fetch's failure (or its cause's) when the connection is refused, reset or closed before the answer is complete. */
function isConnectionError(error: unknown): boolean {
  const codes = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e && typeof e === 'object'; e = e.cause as typeof e) {
    if (typeof e.code === 'string' && codes.has(e.code)) return true;
  }
  return false;
}

describe('crash safety: SIGKILL under attestation load', function () {
  this.timeout(300_000);
  let own: ChildDatabase | undefined;
  before(async () => {
    own = await createChildDatabase('crash');
  });
  after(() => own?.remove());

  it('keeps every acknowledged attestation whole across 20 kills', async () => {
    const { location, args: database } = own!;
    const token = (await runCli(['token', 'create', '--org', 'acme', ...database])).trim();
    const acknowledged = new Map<string, string>(); // attestation name → attachment SHA-256
    let attempted = 0;
    let trailBegun = false;

    for (let round = 0; round < 20; round++) {
      const server = await startServerProcess(database);
      if (!trailBegun) {
        const form = new FormData();
        form.append('data_json', JSON.stringify({ name: 'crash' }));
        expect((await call(server.url, token, 'PUT', '/api/v2/trails/acme/app', { form })).status).to.be.oneOf([200, 201]);
        trailBegun = true;
      }
      let stop = false;
      let killed = false;
      // The kill waits for this round's `killAfter`-th acknowledgement, not for a time: a server
      // starting on a loaded machine may answer its first write only after a second or more.
      const killAfter = randomInt(1, 7);
      let acknowledgedThisRound = 0;
      let enoughAcknowledged!: () => void;
      const acknowledgedEnough = new Promise<void>((resolve) => (enoughAcknowledged = resolve));
      const worker = async (w: number) => {
        for (let i = 0; !stop; i++) {
          const name = `r${round}-w${w}-${i}`;
          const attachment = randomBytes(randomInt(20_000, 200_000));
          const form = new FormData();
          form.append(
            'data_json',
            JSON.stringify({ attestation_name: name, junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 0.1 }] }),
          );
          form.append('attachment_file', new Blob([attachment]), `${name}.xml`);
          attempted++;
          let res;
          try {
            res = await call(server.url, token, 'POST', `/api/v2/attestations/acme/app/trail/crash/junit`, { form });
          } catch (error) {
            if (killed && isConnectionError(error)) return; // the kill cut this request off: its outcome is unknown
            throw error;
          }
          // An answer, before the kill or in the instant of it, is the expected one or a failure.
          if (res.status !== 201) throw new Error(`${name}: unexpected ${res.status}: ${JSON.stringify(res.body)}`);
          acknowledged.set(name, sha256(attachment));
          if (++acknowledgedThisRound === killAfter) enoughAcknowledged();
        }
      };
      const workers = Promise.all(Array.from({ length: 6 }, (_, w) => worker(w)));
      workers.catch(() => {}); // awaited below; a failure before the kill ends the wait early
      try {
        await Promise.race([acknowledgedEnough, workers]);
        // A random moment after it, while the other workers' requests are in flight.
        await new Promise((r) => setTimeout(r, randomInt(0, 100)));
      } finally {
        stop = true;
        killed = true;
        await server.stop('SIGKILL');
      }
      await workers;
    }

    expect(acknowledged.size, 'writes acknowledged before the kills').to.be.at.least(20);
    expect(attempted, 'requests sent, some cut off by the kills').to.be.greaterThan(acknowledged.size);

    if (testBackend === 'sqlite') {
      const raw = new BetterSqlite3(location);
      expect(raw.pragma('integrity_check', { simple: true })).to.equal('ok');
      raw.close();
    }
    let storedCount = 0;
    const store = await openStore(location);
    try {
      const org = (await store.findOrganization('acme'))!;
      const trail = (await store.findTrail(Number(org.id), 'app', 'crash'))!;
      const stored = await store.listAttestations(trail.id);
      storedCount = stored.length;
      const byName = new Map(stored.map((a) => [a.name, a]));
      for (const [name, digest] of acknowledged) {
        const row = byName.get(name);
        expect(row, `acknowledged ${name} is stored`).to.not.equal(undefined);
        expect(row!.attachmentSha256).to.equal(digest);
      }
      // Nothing half-written: every stored attestation (acknowledged or not) has its whole attachment.
      for (const row of stored) {
        const blob = await store.getBlob(row.attachmentSha256!);
        expect(blob, `attachment of ${row.name}`).to.not.equal(undefined);
        expect(sha256(blob!.content)).to.equal(row.attachmentSha256);
        expect(blob!.content.byteLength).to.equal(blob!.size);
      }
    } finally {
      await store.close();
    }

    // The chain holds after the kills: the trail begin and one record for each stored attestation, no more, no fewer.
    const [verified] = JSON.parse(await runCli(['verify', '--org', 'acme', '--json', ...database])) as Array<{
      ok: boolean;
      records: number;
      firstBroken: unknown;
    }>;
    expect(verified!.firstBroken).to.equal(null);
    expect(verified!.ok).to.equal(true);
    expect(verified!.records).to.equal(1 + storedCount);
  });
});
