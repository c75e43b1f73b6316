import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runTrailproof } from '../../../../test/support/processes.ts';
import { fixturePackage, rewritePackage } from '../audit/package-fixture.ts';
import { consistencyProof, encodeProof, generateNoteKey, MemoryTree, parseSignerKey, signCheckpoint } from '../transparency/index.ts';

const origin = 'trailproof.example.com/acme';

describe('trailproof verify-package and verify-checkpoint (offline)', function () {
  this.timeout(60_000);
  let dir: string;
  const file = (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'trailproof-audit-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('verify-package: exit 0 on a sound package; 1 naming the flipped attachment, the changed record or the signature', async () => {
    const pkg = await fixturePackage();
    let attachment = '';
    const flipped = await rewritePackage(pkg.bytes, (name, content) => {
      if (!name.startsWith('attachments/') || attachment) return content;
      attachment = name;
      return Buffer.concat([content.subarray(0, -1), Buffer.from([content[content.length - 1]! ^ 0x20])]);
    });
    const changed = await rewritePackage(pkg.bytes, (name, content) =>
      name === 'records/1/attestation.json' ? Buffer.from(content.toString().replace('"tests"', '"lint"')) : content,
    );
    const keyFile = file('key.txt', `${pkg.verifierKey}\n`);
    const [ok, byFile, flip, change, wrongKey, noKey] = await Promise.all([
      runTrailproof(['verify-package', file('ok.tar.gz', pkg.bytes), '--key', pkg.verifierKey]),
      runTrailproof(['verify-package', join(dir, 'ok.tar.gz'), '--key', keyFile]),
      runTrailproof(['verify-package', file('flipped.tar.gz', flipped), '--key', pkg.verifierKey]),
      runTrailproof(['verify-package', file('changed.tar.gz', changed), '--key', pkg.verifierKey]),
      runTrailproof(['verify-package', join(dir, 'ok.tar.gz'), '--key', pkg.otherKey]),
      runTrailproof(['verify-package', join(dir, 'ok.tar.gz')]),
    ]);
    expect([ok.status, ok.stdout]).to.deep.equal([
      0,
      `OK: 9 records and 2 attachments of acme are in ${origin} at size 14\ncomplete: the package holds every leaf of its selection (since=1700000000), checked against the signed tree\n`,
    ]);
    expect(byFile.status).to.equal(0);
    expect([flip.status, flip.stderr]).to.match(/^1,trailproof: FAILED \(attachment-mismatch\) attachments\/[0-9a-f]{64}: its bytes hash to/);
    expect(flip.stderr).to.contain(attachment);
    expect([change.status, change.stderr]).to.match(/^1,trailproof: FAILED \(record-mismatch\) records\/1\/attestation.json: attestation_name is "lint"/);
    expect([wrongKey.status, wrongKey.stderr]).to.match(/^1,trailproof: FAILED \(no-signature-by-key\) checkpoint: /);
    expect([noKey.status, noKey.stderr]).to.match(/^2,trailproof: --key VERIFIER_KEY is required/);
  });

  it('verify-checkpoint: accepts a true extension; refuses a rewritten history (re-signed by the same or a new key) and a truncated tree', async () => {
    const key = generateNoteKey('trailproof.example.com');
    const newKey = generateNoteKey('trailproof.example.com');
    const leaves = Array.from({ length: 20 }, (_, i) => Buffer.from(`{"seq":${i + 1}}`));
    const tree = MemoryTree.fromLeaves(leaves);
    const rewritten = MemoryTree.fromLeaves(leaves.map((leaf, i) => (i === 3 ? Buffer.from('{"seq":4,"rewritten":true}') : leaf)));
    const signed = (t: MemoryTree, size: number, by = key) => signCheckpoint({ origin, size, rootHash: t.root(size) }, parseSignerKey(by.signerKey));
    const old = file('old', signed(tree, 12));
    const proof = (t: MemoryTree, from: number, to: number) =>
      file(`proof-${from}-${to}-${t === tree ? 'a' : 'b'}.json`, JSON.stringify(encodeProof(consistencyProof(t, from, to))));
    const [extends_, sameKeyRewrite, newKeyRewrite, truncated, noProof] = await Promise.all([
      runTrailproof(['verify-checkpoint', old, file('new', signed(tree, 20)), '--key', key.verifierKey, '--proof', proof(tree, 12, 20)]),
      runTrailproof(['verify-checkpoint', old, file('rewritten', signed(rewritten, 20)), '--key', key.verifierKey, '--proof', proof(rewritten, 12, 20)]),
      runTrailproof(['verify-checkpoint', old, file('resigned', signed(rewritten, 20, newKey)), '--key', key.verifierKey, '--proof', proof(rewritten, 12, 20)]),
      runTrailproof(['verify-checkpoint', old, file('truncated', signed(tree, 8)), '--key', key.verifierKey, '--proof', file('empty.json', '[]')]),
      runTrailproof(['verify-checkpoint', old, join(dir, 'new'), '--key', key.verifierKey]),
    ]);
    expect([extends_.status, extends_.stdout]).to.deep.equal([0, `OK: ${origin} at size 20 extends size 12\n`]);
    expect([sameKeyRewrite.status, sameKeyRewrite.stderr]).to.match(/^1,trailproof: FAILED \(consistency-old-root-mismatch\)/);
    expect([newKeyRewrite.status, newKeyRewrite.stderr]).to.match(/^1,trailproof: FAILED \(no-signature-by-key\)/);
    expect([truncated.status, truncated.stderr]).to.match(/^1,trailproof: FAILED \(size-order\)/);
    expect([noProof.status, noProof.stderr]).to.match(/^2,trailproof: give --proof FILE or --server URL/);
  });

  it('verify-package, verify-checkpoint and export answer --help with their flags; export refuses a trail without its flow and an existing file', async () => {
    const existing = file('existing.tar.gz', 'x');
    const [pkg, cp, exp, noFlow, exists, badTime] = await Promise.all([
      runTrailproof(['verify-package', '--help']),
      runTrailproof(['verify-checkpoint', '-h']),
      runTrailproof(['export', '--help']),
      runTrailproof(['export', '--org', 'acme', '--trail', 't1', '-o', join(dir, 'x.tar.gz'), '--db', join(dir, 'none.db')]),
      runTrailproof(['export', '--org', 'acme', '-o', existing, '--db', join(dir, 'none.db')]),
      runTrailproof(['export', '--org', 'acme', '--since', 'last tuesday', '-o', join(dir, 'y.tar.gz'), '--db', join(dir, 'none.db')]),
    ]);
    expect([pkg.status, cp.status, exp.status]).to.deep.equal([0, 0, 0]);
    expect(pkg.stdout).to.contain('trailproof verify-package FILE.tar.gz --key VERIFIER_KEY').and.to.contain('Exit status');
    expect(cp.stdout).to.contain('--proof FILE').and.to.contain('--server URL').and.to.contain('TRAILPROOF_API_TOKEN');
    expect(exp.stdout)
      .to.contain('--org ORG')
      .and.to.contain('--flow F')
      .and.to.contain('--since TIME')
      .and.to.contain('-o, --output FILE')
      .and.to.contain('--server URL');
    expect([noFlow.status, noFlow.stderr]).to.match(/^2,trailproof: --trail needs --flow/);
    expect([exists.status, exists.stderr]).to.match(/^2,trailproof: .*existing\.tar\.gz exists already/);
    expect([badTime.status, badTime.stderr]).to.match(/^2,trailproof: --since takes an ISO 8601 date/);
    expect(readFileSync(existing, 'utf8')).to.equal('x');
  });
});
