import { expect } from 'chai';
import fc from 'fast-check';
import { verifyCheckpoint } from '@sigstore/verify/dist/tlog/checkpoint.js';
import { verifyMerkleInclusion } from '@sigstore/verify/dist/tlog/merkle.js';
import { generateNoteKey, inclusionProof, MemoryTree, parseSignerKey, signCheckpoint } from './index.ts';

// An independent implementation: Sigstore's JavaScript verifier (npm @sigstore/verify) checks
// Rekor's RFC 6962 inclusion proofs and C2SP checkpoints. Its internal verifiers take a Rekor
// log entry; ours fill one in with our leaf, proof and signed checkpoint.
const MAX = 3000;
const leaves = Array.from({ length: MAX }, (_, i) => Buffer.from(`{"attestation":${i},"n":${Math.random()}}`));
const tree = MemoryTree.fromLeaves(leaves);
const keyName = 'trailproof.example.com';
const signer = parseSignerKey(generateNoteKey(keyName).signerKey);
const keyHint = Buffer.alloc(32);
keyHint.writeUInt32BE(signer.keyHash);
// Sigstore finds the log's key by the signature's 4-byte key hash and the key's name.
const tlogs = [{ logID: keyHint, publicKey: signer.publicKey, baseURL: `https://${keyName}`, validFor: { start: new Date(0), end: new Date(8.64e15) } }];

function rekorEntry(index: number, size: number, proof: Buffer[], leaf: Buffer) {
  const envelope = signCheckpoint({ origin: `${keyName}/acme`, size, rootHash: tree.root(size) }, signer);
  return {
    canonicalizedBody: leaf,
    inclusionProof: { logIndex: String(index), treeSize: String(size), rootHash: tree.root(size), hashes: proof, checkpoint: { envelope } },
  };
}

function sigstoreAccepts(entry: ReturnType<typeof rekorEntry>): boolean {
  try {
    // The parameter types are Sigstore's protobuf types; the fields it reads are those filled above.
    const checkpoint = verifyCheckpoint(entry as never, tlogs as never);
    verifyMerkleInclusion(entry as never, checkpoint);
    return true;
  } catch {
    return false;
  }
}

describe('transparency: cross-checked with Sigstore’s verifier (@sigstore/verify)', () => {
  it('accepts our signed checkpoints and inclusion proofs for random sizes and leaves', () => {
    const sizeAndIndex = fc.integer({ min: 1, max: MAX }).chain((size) => fc.tuple(fc.constant(size), fc.nat({ max: size - 1 })));
    fc.assert(
      fc.property(sizeAndIndex, ([size, index]) => {
        expect(sigstoreAccepts(rekorEntry(index, size, inclusionProof(tree, index, size), leaves[index]!)), `leaf ${index} of ${size}`).to.equal(true);
      }),
      { numRuns: 500 },
    );
  });

  it('rejects them once a proof hash, the leaf or the signed text changes (so the cross-check has teeth)', () => {
    const proof = inclusionProof(tree, 1234, 2999);
    const good = rekorEntry(1234, 2999, proof, leaves[1234]!);
    expect(sigstoreAccepts(good)).to.equal(true);
    const badProof = proof.map((h, i) => (i === 4 ? Buffer.from(h.map((b, j) => (j === 0 ? b ^ 0x80 : b))) : h));
    expect(sigstoreAccepts(rekorEntry(1234, 2999, badProof, leaves[1234]!))).to.equal(false);
    expect(sigstoreAccepts(rekorEntry(1234, 2999, proof, leaves[1235]!))).to.equal(false);
    const envelope = good.inclusionProof.checkpoint.envelope.replace('\n2999\n', '\n3000\n');
    expect(sigstoreAccepts({ ...good, inclusionProof: { ...good.inclusionProof, checkpoint: { envelope } } })).to.equal(false);
  });
});
