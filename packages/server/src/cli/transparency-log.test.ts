/** `trailproof key show` and the log's settings from the environment (issue 34). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { openSqliteStore } from '@trailproof/server';
import { buildPackages, runProcess, trailproofBin } from '../../../../test/support/processes.ts';
import { logOptionsFromEnvironment } from './transparency-log.ts';
import { UsageError } from './common.ts';
import { generateNoteKey, parseVerifierKey } from '../transparency/index.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
/** The built command (processes.ts), with no database or signing key inherited. */
const trailproof = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
  await buildPackages();
  const { DATABASE_URL: _d, TRAILPROOF_DB: _t, TRAILPROOF_SIGNING_KEY: _k, TRAILPROOF_SIGNING_KEY_FILE: _f, NODE_OPTIONS: _n, ...rest } = process.env;
  return runProcess(process.execPath, [trailproofBin, ...args], { cwd: root, env: { ...rest, ...env } });
};

describe('trailproof key show and the log settings', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'trailproof-key-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the key, its file, the origin and the interval, refusing each malformed one by name', () => {
    const key = generateNoteKey('logs.example.com');
    writeFileSync(join(dir, 'key'), `${key.signerKey}\n`);
    expect(
      logOptionsFromEnvironment({
        TRAILPROOF_SIGNING_KEY_FILE: join(dir, 'key'),
        TRAILPROOF_LOG_ORIGIN: 'logs.example.com',
        TRAILPROOF_CHECKPOINT_INTERVAL_MS: '0',
      }),
    ).to.deep.equal({ signerKey: key.signerKey, origin: 'logs.example.com', checkpointIntervalMs: 0 });
    for (const [env, named] of [
      [{ TRAILPROOF_SIGNING_KEY: key.verifierKey }, 'TRAILPROOF_SIGNING_KEY'],
      [{ TRAILPROOF_SIGNING_KEY: key.signerKey, TRAILPROOF_SIGNING_KEY_FILE: join(dir, 'key') }, 'TRAILPROOF_SIGNING_KEY_FILE'],
      [{ TRAILPROOF_SIGNING_KEY_FILE: join(dir, 'missing') }, 'TRAILPROOF_SIGNING_KEY_FILE'],
      [{ TRAILPROOF_LOG_ORIGIN: 'two words' }, 'TRAILPROOF_LOG_ORIGIN'],
      [{ TRAILPROOF_CHECKPOINT_INTERVAL_MS: '1.5' }, 'TRAILPROOF_CHECKPOINT_INTERVAL_MS'],
    ] as const) {
      expect(() => logOptionsFromEnvironment(env), named).to.throw(UsageError, named);
    }
  });

  it('prints the verifier key the database keeps (made on first start), or the one given', async () => {
    const file = join(dir, 'trailproof.db');
    const shown = await trailproof(['key', 'show', '--db', file]);
    expect(shown.status, shown.stderr).to.equal(0);
    const store = await openSqliteStore(file);
    try {
      expect(shown.stdout).to.equal(`${store.logSigning!.signer.verifierKey}\n`);
      expect(parseVerifierKey(shown.stdout.trim()).name).to.equal(store.logSigning!.origin);
    } finally {
      await store.close();
    }
    const given = generateNoteKey('logs.example.com');
    const withKey = await trailproof(['key', 'show', '--db', file], { TRAILPROOF_SIGNING_KEY: given.signerKey });
    expect(withKey.stdout).to.equal(`${given.verifierKey}\n`);
    const help = await trailproof(['key', 'show', '--help']);
    expect(help.stdout).to.contain('trailproof key show').and.to.contain('TRAILPROOF_SIGNING_KEY_FILE');
  });
});
