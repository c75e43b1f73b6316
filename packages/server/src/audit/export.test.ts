// @database
/**
 * The audit package end to end, as an operator and an auditor would run it: `trailproof serve`
 * processes on SQLite or PostgreSQL (TRAILPROOF_TEST_DATABASE), evidence stored through the API,
 * packages exported with the CLI from the database and through the API, checked by
 * `verify-package`; checkpoints of a true extension and of rewritten histories checked by
 * `verify-checkpoint` against a server.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { testBackend } from '@trailproof/server/testing';
import { createChildDatabase } from '../../../../test/support/child-database.ts';
import { runTrailproof, startServerProcess, type ServerProcess } from '../../../../test/support/processes.ts';
import { generateNoteKey } from '../transparency/index.ts';
import { storeStory, storyRequest } from './audit-story.ts';
import { rewritePackage } from './package-fixture.ts';

/** One server process on a database of its own, with a token of `acme` and a read token. */
interface Served {
  server: ServerProcess;
  db: string[];
  token: string;
  readToken: string;
  drop(): Promise<void>;
}

describe(`audit package round trip and verify-checkpoint (${testBackend})`, function () {
  this.timeout(240_000);
  let dir: string;
  const servers: Served[] = [];
  const signerKey = generateNoteKey('audit.example.com').signerKey;

  async function serve(name: string, env: NodeJS.ProcessEnv = {}): Promise<Served> {
    const database = await createChildDatabase(`audit_${name}`);
    const db = database.args;
    const drop = () => database.remove();
    const token = async (...extra: string[]) => {
      const created = await runTrailproof(['token', 'create', '--org', 'acme', ...extra, ...db]);
      if (created.status !== 0) throw new Error(created.stderr);
      return created.stdout.trim();
    };
    const [write, read] = [await token(), await token('--read-only')];
    const server = await startServerProcess(db, { TRAILPROOF_LOG_ORIGIN: 'audit.example.com', TRAILPROOF_CHECKPOINT_INTERVAL_MS: '0', ...env });
    const served = { server, db, token: write, readToken: read, drop };
    servers.push(served);
    return served;
  }

  /** The latest checkpoint once it covers `size` leaves at least. */
  async function checkpointOf(served: Served, size: number): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${served.server.url}/api/v2/log/acme/checkpoint`, { headers: { authorization: `Bearer ${served.readToken}` } });
      const note = await res.text();
      if (res.status === 200 && Number(note.split('\n')[1]) >= size) return note;
      await sleep(50);
    }
    throw new Error(`no checkpoint of ${size} leaves`);
  }

  const keyOf = async (served: Served) =>
    (
      (await (await fetch(`${served.server.url}/api/v2/log/acme/key`, { headers: { authorization: `Bearer ${served.readToken}` } })).json()) as {
        verifier_key: string;
      }
    ).verifier_key;
  const file = (name: string, content: string | Buffer) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'trailproof-audit-'));
  });
  after(async () => {
    for (const s of servers) {
      await s.server.stop();
      await s.drop();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('exports through the CLI (database) and the API, verifies offline, and names a flipped attachment, a changed record and a wrong key', async () => {
    const a = await serve('a', { TRAILPROOF_SIGNING_KEY: signerKey });
    await storeStory(storyRequest(a.server.url, a.token));
    await checkpointOf(a, 13);
    const key = await keyOf(a);
    const fromDb = join(dir, 'from-db.tar.gz');
    const fromApi = join(dir, 'from-api.tar.gz');
    const flowOnly = join(dir, 'flow.tar.gz');
    const exports = await Promise.all([
      runTrailproof(['export', '--org', 'acme', '-o', fromDb, ...a.db], { TRAILPROOF_SIGNING_KEY: signerKey }),
      runTrailproof(['export', '--org', 'acme', '-o', fromApi, '--server', a.server.url, '--token', a.readToken]),
      runTrailproof(['export', '--org', 'acme', '--flow', 'backend', '--trail', 't1', '-o', flowOnly, '--server', a.server.url], {
        TRAILPROOF_API_TOKEN: a.readToken,
      }),
    ]);
    for (const e of exports) expect(e.status, e.stderr).to.equal(0);
    const verified = await Promise.all([fromDb, fromApi, flowOnly].map((f) => runTrailproof(['verify-package', f, '--key', key])));
    expect(verified.map((v) => [v.status, v.stdout])).to.deep.equal([
      [
        0,
        'OK: 13 records and 2 attachments of acme are in audit.example.com/acme at size 13\ncomplete: the package holds every leaf of its selection (the whole log), checked against the signed tree\n',
      ],
      [
        0,
        'OK: 13 records and 2 attachments of acme are in audit.example.com/acme at size 13\ncomplete: the package holds every leaf of its selection (the whole log), checked against the signed tree\n',
      ],
      [
        0,
        'OK: 5 records and 2 attachments of acme are in audit.example.com/acme at size 13\ncomplete: the package holds every leaf of its selection (flow=backend trail=t1), checked against the signed tree\n',
      ],
    ]);

    const bytes = readFileSync(fromApi);
    let attachment = '';
    const flipped = await rewritePackage(bytes, (name, content) => {
      if (!name.startsWith('attachments/') || attachment) return content;
      attachment = name;
      return Buffer.from(content.map((b, i) => (i === 100 ? b ^ 0x01 : b)));
    });
    let record = '';
    const changed = await rewritePackage(bytes, (name, content) => {
      if (!name.endsWith('/attestation.json') || record) return content;
      record = name;
      return Buffer.from(content.toString().replace('"is_compliant": false', '"is_compliant": true').replace('"is_compliant": true', '"is_compliant": false'));
    });
    const failures = await Promise.all([
      runTrailproof(['verify-package', file('flipped.tar.gz', flipped), '--key', key]),
      runTrailproof(['verify-package', file('changed.tar.gz', changed), '--key', key]),
      runTrailproof(['verify-package', fromApi, '--key', generateNoteKey('audit.example.com').verifierKey]),
    ]);
    expect(failures.map((f) => f.status)).to.deep.equal([1, 1, 1]);
    expect(failures[0]!.stderr).to.contain(`FAILED (attachment-mismatch) ${attachment}: `);
    expect(failures[1]!.stderr).to.contain(`FAILED (record-mismatch) ${record}: is_compliant is`);
    expect(failures[2]!.stderr).to.contain('FAILED (no-signature-by-key) checkpoint: ');
  });

  it('verify-checkpoint accepts a true extension and finds a history rewritten (re-signed by the same key or a new one) or cut short', async () => {
    const a = servers[0]!;
    const older = file('older', await checkpointOf(a, 13));
    const key = await keyOf(a);
    await storyRequest(a.server.url, a.token)('PUT', '/api/v2/trails/acme/backend', { form: { data_json: JSON.stringify({ name: 't9' }) } });
    const newer = file('newer', await checkpointOf(a, 14));
    // An operator who rebuilds the database with a history of their own: the same key, or a new one.
    // The three histories at once: each is a server on a database of its own.
    const [[rewritten, forged], [resigned, newKey], [shorter, cut]] = await Promise.all([
      (async () => {
        const served = await serve('rewritten', { TRAILPROOF_SIGNING_KEY: signerKey });
        await storeStory(storyRequest(served.server.url, served.token), {});
        await storyRequest(served.server.url, served.token)('PUT', '/api/v2/trails/acme/backend', { form: { data_json: JSON.stringify({ name: 'forged' }) } });
        return [served, file('forged', await checkpointOf(served, 14))] as const;
      })(),
      (async () => {
        const served = await serve('resigned');
        await storeStory(storyRequest(served.server.url, served.token));
        return [served, file('new-key', await checkpointOf(served, 13))] as const;
      })(),
      (async () => {
        const served = await serve('shorter', { TRAILPROOF_SIGNING_KEY: signerKey });
        await storyRequest(served.server.url, served.token)('PUT', '/api/v2/trails/acme/backend', { form: { data_json: JSON.stringify({ name: 't1' }) } });
        return [served, file('cut', await checkpointOf(served, 1))] as const;
      })(),
    ]);
    const online = (served: Served) => ['--server', served.server.url, '--org', 'acme', '--token', served.readToken];
    const [extension, sameKey, otherKey, truncated] = await Promise.all([
      runTrailproof(['verify-checkpoint', older, newer, '--key', key, ...online(a)]),
      runTrailproof(['verify-checkpoint', older, forged, '--key', key, ...online(rewritten)]),
      runTrailproof(['verify-checkpoint', older, newKey, '--key', key, ...online(resigned)]),
      runTrailproof(['verify-checkpoint', older, cut, '--key', key, ...online(shorter)]),
    ]);
    expect([extension.status, extension.stdout]).to.deep.equal([0, 'OK: audit.example.com/acme at size 14 extends size 13\n']);
    expect([sameKey.status, sameKey.stderr]).to.match(/^1,trailproof: FAILED \(consistency-old-root-mismatch\)/);
    expect([otherKey.status, otherKey.stderr]).to.match(/^1,trailproof: FAILED \(no-signature-by-key\)/);
    expect([truncated.status, truncated.stderr]).to.match(/^1,trailproof: FAILED \(size-order\)/);
  });
});
