import { expect } from 'chai';
import fc from 'fast-check';
import {
  consistencyProof,
  formatCheckpoint,
  generateNoteKey,
  inclusionProof,
  MemoryTree,
  openCheckpoint,
  parseCheckpoint,
  parseSignerKey,
  parseVerifierKey,
  signCheckpoint,
  verificationOutcome,
  verifyCheckpointConsistency,
  verifyLeafInclusion,
} from './index.ts';

const origin = 'trailproof.example.com/acme';
const key = generateNoteKey('trailproof.example.com');
const signer = parseSignerKey(key.signerKey);
const leaves = Array.from({ length: 40 }, (_, i) => Buffer.from(`{"attestation":${i}}`));
const tree = MemoryTree.fromLeaves(leaves);
const signedAt = (size: number, treeOf = tree, by = signer) => signCheckpoint({ origin, size, rootHash: treeOf.root(size) }, by);

describe('transparency: tlog-checkpoint text', () => {
  it('formats origin, decimal size, base64 root hash and extension lines, and reads them back', () => {
    const rootHash = tree.root(7);
    const text = formatCheckpoint({ origin, size: 7, rootHash, extensions: ['Timestamp: 1700000000'] });
    expect(text).to.equal(`${origin}\n7\n${rootHash.toString('base64')}\nTimestamp: 1700000000\n`);
    const parsed = parseCheckpoint(text);
    expect([parsed.origin, parsed.size, Buffer.from(parsed.rootHash).equals(rootHash), parsed.extensions]).to.deep.equal([
      origin,
      7,
      true,
      ['Timestamp: 1700000000'],
    ]);
  });

  it('rejects non-canonical numbers, hashes and layouts', () => {
    const root = tree.root(7).toString('base64');
    const texts = [
      `${origin}\n07\n${root}\n`,
      `${origin}\n+7\n${root}\n`,
      `${origin}\n-7\n${root}\n`,
      `${origin}\n 7\n${root}\n`,
      `${origin}\n7.0\n${root}\n`,
      `${origin}\n0x7\n${root}\n`,
      `${origin}\n9007199254740992\n${root}\n`,
      `${origin}\n7\n${root}`,
      `\n7\n${root}\n`,
      `${origin}\n7\n`,
      `${origin}\n7\n${root.slice(0, -4)}\n`,
      `${origin}\n7\n${root.replace('=', '')}\n`,
      `${origin}\n7\n${Buffer.from(tree.root(7)).toString('base64url')}\n`,
      `${origin}\n7\n${root}\n\nextension\n`,
    ];
    for (const text of texts)
      expect(
        verificationOutcome(() => parseCheckpoint(text)),
        JSON.stringify(text),
      ).to.equal('malformed-checkpoint');
  });

  it("opens a real checkpoint of Go's checksum database (sum.golang.org) with its published key", () => {
    // Values only: a sum.golang.org /lookup answer quoted in the sigsum-go project's documentation
    // on release tags; the key is the one the go command trusts by default (GOSUMDB).
    const goKey = 'sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8';
    const goNote =
      'go.sum database tree\n49189689\nftjbAOzaupaIvaPo/G+Dk63nxOZ2s1OPOKIaPtXs7S4=\n\n— sum.golang.org Az3grlKZssqRoMNPpZfKt0TphbbcF+pzXqElURJKRNFKfaUAgqeI5k2AORH0QAhg/ebRwyIqD/OqP4oLtLnNumvOBAM=\n';
    const { checkpoint } = openCheckpoint(goNote, parseVerifierKey(goKey), 'go.sum database tree');
    expect([checkpoint.size, Buffer.from(checkpoint.rootHash).toString('base64')]).to.deep.equal([49189689, 'ftjbAOzaupaIvaPo/G+Dk63nxOZ2s1OPOKIaPtXs7S4=']);
    expect(verificationOutcome(() => openCheckpoint(goNote.replace('49189689', '49189690'), parseVerifierKey(goKey)))).to.equal('bad-signature');
  });

  it('opens a signed checkpoint, and names a wrong origin', () => {
    const { checkpoint } = openCheckpoint(signedAt(7), signer, origin);
    expect(checkpoint.size).to.equal(7);
    expect(verificationOutcome(() => openCheckpoint(signedAt(7), signer, 'trailproof.example.com/globex'))).to.equal('origin-mismatch');
  });
});

describe('transparency: offline verification against signed checkpoints', () => {
  it("proves each leaf's inclusion against a signed checkpoint", () => {
    const checkpoint = signedAt(33);
    for (let index = 0; index < 33; index++) {
      const verified = verifyLeafInclusion({
        leaf: leaves[index],
        index,
        proof: inclusionProof(tree, index, 33),
        checkpoint,
        verifierKey: key.verifierKey,
        origin,
      });
      expect(verified.size).to.equal(33);
    }
  });

  it('names what fails: the leaf, its hash, the proof, the index, the signature, the key, the origin', () => {
    const checkpoint = signedAt(33);
    const proof = inclusionProof(tree, 5, 33);
    const base = { leaf: leaves[5], index: 5, proof, checkpoint, verifierKey: key.verifierKey, origin };
    const otherKey = generateNoteKey('trailproof.example.com');
    const flipped = proof.map((h, i) => (i === 2 ? Buffer.from(h.map((b, j) => (j === 9 ? b ^ 1 : b))) : h));
    const changedSize = checkpoint.replace('\n33\n', '\n34\n');
    expect(verificationOutcome(() => verifyLeafInclusion(base))).to.equal('verified');
    expect(verificationOutcome(() => verifyLeafInclusion({ ...base, leaf: Buffer.from('{"attestation":55}') }))).to.equal('inclusion-root-mismatch');
    expect(verificationOutcome(() => verifyLeafInclusion({ ...base, leafHash: tree.leafHash(6) }))).to.equal('leaf-mismatch');
    expect(verificationOutcome(() => verifyLeafInclusion({ ...base, proof: flipped }))).to.equal('inclusion-root-mismatch');
    expect(verificationOutcome(() => verifyLeafInclusion({ ...base, proof: proof.slice(1) }))).to.equal('proof-length');
    expect(verificationOutcome(() => verifyLeafInclusion({ ...base, index: 6 }))).to.equal('inclusion-root-mismatch');
    expect(verificationOutcome(() => verifyLeafInclusion({ ...base, index: 33 }))).to.equal('index-out-of-range');
    expect(verificationOutcome(() => verifyLeafInclusion({ ...base, checkpoint: changedSize }))).to.equal('bad-signature');
    expect(verificationOutcome(() => verifyLeafInclusion({ ...base, verifierKey: otherKey.verifierKey }))).to.equal('no-signature-by-key');
    expect(verificationOutcome(() => verifyLeafInclusion({ ...base, verifierKey: 'nonsense' }))).to.equal('malformed-key');
    expect(verificationOutcome(() => verifyLeafInclusion({ ...base, origin: 'trailproof.example.com/globex' }))).to.equal('origin-mismatch');
    expect(verificationOutcome(() => verifyLeafInclusion({ ...base, checkpoint: checkpoint.replace('\n\n', '\n') }))).to.equal('malformed-note');
  });

  it('proves that a later checkpoint extends an earlier one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }).chain((b) => fc.tuple(fc.integer({ min: 0, max: b }), fc.constant(b))),
        ([a, b]) => {
          const { older, newer } = verifyCheckpointConsistency({
            older: signedAt(a),
            newer: signedAt(b),
            proof: consistencyProof(tree, a, b),
            verifierKey: key.verifierKey,
            origin,
          });
          expect([older.size, newer.size]).to.deep.equal([a, b]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('detects a rewritten history, whether re-signed with the same key or a new one', () => {
    const rewritten = MemoryTree.fromLeaves(leaves.map((leaf, i) => (i === 3 ? Buffer.from('{"attestation":"forged"}') : leaf)));
    const older = signedAt(10);
    // The operator rewrites leaf 3 and signs the new tree with the log's key: no proof links the two.
    const forgedNewer = signedAt(30, rewritten);
    const proof = consistencyProof(rewritten, 10, 30);
    expect(verificationOutcome(() => verifyCheckpointConsistency({ older, newer: forgedNewer, proof, verifierKey: key.verifierKey }))).to.equal(
      'consistency-old-root-mismatch',
    );
    const honestProof = consistencyProof(tree, 10, 30);
    expect(verificationOutcome(() => verifyCheckpointConsistency({ older, newer: forgedNewer, proof: honestProof, verifierKey: key.verifierKey }))).to.equal(
      'consistency-new-root-mismatch',
    );
    // Re-signed with a new key: the auditor's verifier key finds no signature.
    const newSigner = parseSignerKey(generateNoteKey('trailproof.example.com').signerKey);
    expect(
      verificationOutcome(() => verifyCheckpointConsistency({ older, newer: signedAt(30, rewritten, newSigner), proof, verifierKey: key.verifierKey })),
    ).to.equal('no-signature-by-key');
  });

  it('names reversed, foreign and altered checkpoints', () => {
    const proof = consistencyProof(tree, 10, 30);
    const base = { older: signedAt(10), newer: signedAt(30), proof, verifierKey: key.verifierKey };
    expect(verificationOutcome(() => verifyCheckpointConsistency(base))).to.equal('verified');
    expect(verificationOutcome(() => verifyCheckpointConsistency({ ...base, older: base.newer, newer: base.older }))).to.equal('size-order');
    const globex = signCheckpoint({ origin: 'trailproof.example.com/globex', size: 30, rootHash: tree.root(30) }, signer);
    expect(verificationOutcome(() => verifyCheckpointConsistency({ ...base, newer: globex }))).to.equal('origin-mismatch');
    expect(verificationOutcome(() => verifyCheckpointConsistency({ ...base, origin: 'trailproof.example.com/globex' }))).to.equal('origin-mismatch');
    expect(verificationOutcome(() => verifyCheckpointConsistency({ ...base, proof: [] }))).to.equal('proof-length');
  });
});
