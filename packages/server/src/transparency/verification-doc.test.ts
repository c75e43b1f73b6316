import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consistencyProof, encodeProof, generateNoteKey, inclusionProof, MemoryTree, parseSignerKey, signCheckpoint } from './index.ts';

// docs/verification.md shows a Python script that checks our proofs independently; this runs
// the script exactly as the page shows it, so the page cannot drift from the formats.
const page = readFileSync(new URL('../../../../docs/verification.md', import.meta.url), 'utf8');
const script = /```python\n([\s\S]*?)```/.exec(page)?.[1];
const available = (command: string, ...args: string[]) => spawnSync(command, args).status === 0;

describe('transparency: the Python verifier of docs/verification.md', () => {
  let folder = '';
  const run = (...args: string[]) => spawnSync('python3', [join(folder, 'verify.py'), ...args], { encoding: 'utf8' });

  before(function () {
    if (!available('python3', '--version') || !available('openssl', 'version')) this.skip(); // both are on the project's machines
    folder = mkdtempSync(join(tmpdir(), 'trailproof-verify-'));
    writeFileSync(join(folder, 'verify.py'), script ?? '');
  });
  after(() => folder && rmSync(folder, { recursive: true, force: true }));

  const leaves = Array.from({ length: 300 }, (_, i) => Buffer.from(`{"attestation":${i}}`));
  const tree = MemoryTree.fromLeaves(leaves);
  const key = generateNoteKey('trailproof.example.com');
  const signer = parseSignerKey(key.signerKey);
  const write = (name: string, data: string | Buffer) => {
    writeFileSync(join(folder, name), data);
    return join(folder, name);
  };
  const checkpointAt = (size: number, name: string) =>
    write(name, signCheckpoint({ origin: 'trailproof.example.com/acme', size, rootHash: tree.root(size) }, signer));

  it('accepts an inclusion proof made by our code, and fails on another leaf, a changed proof or another key', () => {
    expect(script, 'a python block in docs/verification.md').to.be.a('string');
    const checkpoint = checkpointAt(277, 'checkpoint');
    for (const index of [0, 1, 137, 255, 256, 276]) {
      const leaf = write(`leaf-${index}`, leaves[index]!);
      const proof = write(`proof-${index}.json`, JSON.stringify(encodeProof(inclusionProof(tree, index, 277))));
      const result = run('inclusion', key.verifierKey, checkpoint, leaf, String(index), proof);
      expect(result.stdout + result.stderr).to.equal(`OK: leaf ${index} is in trailproof.example.com/acme at size 277\n`);
    }
    const proof = inclusionProof(tree, 137, 277);
    const proofFile = write('proof.json', JSON.stringify(encodeProof(proof)));
    const otherLeaf = write('other-leaf', leaves[138]!);
    expect(run('inclusion', key.verifierKey, checkpoint, otherLeaf, '137', proofFile).stderr).to.equal(
      "FAILED: the proof does not lead to the checkpoint's root\n",
    );
    const changed = write('changed.json', JSON.stringify(encodeProof([proof[0]!.map((b, i) => (i === 0 ? b ^ 1 : b)), ...proof.slice(1)])));
    const leaf = write('leaf', leaves[137]!);
    expect(run('inclusion', key.verifierKey, checkpoint, leaf, '137', changed).status).to.not.equal(0);
    expect(run('inclusion', generateNoteKey('trailproof.example.com').verifierKey, checkpoint, leaf, '137', proofFile).stderr).to.equal(
      'FAILED: the checkpoint has no signature by trailproof.example.com\n',
    );
    const forged = write('forged', readFileSync(checkpoint, 'utf8').replace('\n277\n', '\n278\n'));
    expect(run('inclusion', key.verifierKey, forged, leaf, '137', proofFile).stderr).to.equal("FAILED: the checkpoint's signature does not verify\n");
  });

  it('accepts a consistency proof made by our code, and fails on a rewritten history', () => {
    const older = checkpointAt(100, 'older');
    const newer = checkpointAt(277, 'newer');
    const proof = write('consistency.json', JSON.stringify(encodeProof(consistencyProof(tree, 100, 277))));
    expect(run('consistency', key.verifierKey, older, newer, proof).stdout).to.equal('OK: trailproof.example.com/acme at size 277 extends size 100\n');
    const rewritten = MemoryTree.fromLeaves(leaves.map((leaf, i) => (i === 42 ? Buffer.from('forged') : leaf)));
    const forged = write('forged-newer', signCheckpoint({ origin: 'trailproof.example.com/acme', size: 277, rootHash: rewritten.root(277) }, signer));
    const forgedProof = write('forged.json', JSON.stringify(encodeProof(consistencyProof(rewritten, 100, 277))));
    expect(run('consistency', key.verifierKey, older, forged, forgedProof).stderr).to.equal('FAILED: the newer checkpoint does not extend the older one\n');
    expect(run('consistency', key.verifierKey, newer, older, proof).status).to.not.equal(0);
  });
});
