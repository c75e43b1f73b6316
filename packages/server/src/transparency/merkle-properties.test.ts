import { expect } from 'chai';
import fc from 'fast-check';
import {
  CompactRange,
  consistencyProof,
  consistencyProofPlan,
  frontierIds,
  inclusionProof,
  inclusionProofPlan,
  leafHash,
  MemoryTree,
  nodeHash,
  readProof,
  rememberRanges,
  verifyConsistency,
  verifyInclusion,
  verificationOutcome,
} from './index.ts';

// A tree of random leaves; every size up to MAX is a prefix of it, with the same complete subtrees.
const MAX = 3000;
const leaves = Array.from({ length: MAX }, (_, i) => Buffer.from(`leaf ${i} ${Math.random()}`));
const tree = MemoryTree.fromLeaves(leaves);

// RFC 9162's MTH written straight from its definition, to check the stored-subtree code against.
function referenceRoot(hashes: Buffer[]): Buffer {
  if (hashes.length === 1) return hashes[0]!;
  let k = 1;
  while (k * 2 < hashes.length) k *= 2;
  return nodeHash(referenceRoot(hashes.slice(0, k)), referenceRoot(hashes.slice(k)));
}

const rejected = (action: () => void) => verificationOutcome(action) !== 'verified';

function withByteChanged(hashes: Buffer[], which: number, byte: number, delta: number): Buffer[] {
  return hashes.map((hash, i) => {
    if (i !== which % hashes.length) return hash;
    const copy = Buffer.from(hash);
    copy[byte % copy.length] = (copy[byte % copy.length]! + delta) % 256;
    return copy;
  });
}

const sizeAndIndex = fc.integer({ min: 1, max: MAX }).chain((size) => fc.tuple(fc.constant(size), fc.nat({ max: size - 1 })));
const twoSizes = fc.integer({ min: 1, max: MAX }).chain((size2) => fc.tuple(fc.integer({ min: 1, max: size2 }), fc.constant(size2)));
const change = fc.record({ which: fc.nat(), byte: fc.nat({ max: 31 }), delta: fc.integer({ min: 1, max: 255 }) });

describe('transparency: Merkle proofs for random tree sizes (property tests)', () => {
  it('computes the root from stored subtrees as the definition does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), (size) => {
        expect(tree.root(size).equals(referenceRoot(leaves.slice(0, size).map(leafHash)))).to.equal(true);
      }),
    );
  });

  it('verifies every inclusion proof, and no longer when a proof byte, the leaf, the root, the index or the size changes', () => {
    fc.assert(
      fc.property(sizeAndIndex, change, fc.integer({ min: 1, max: MAX }), ([size, index], { which, byte, delta }, other) => {
        const proof = inclusionProof(tree, index, size);
        const leaf = tree.leafHash(index);
        const root = tree.root(size);
        verifyInclusion(index, size, leaf, proof, root);
        if (proof.length > 0) expect(rejected(() => verifyInclusion(index, size, leaf, withByteChanged(proof, which, byte, delta), root))).to.equal(true);
        expect(rejected(() => verifyInclusion(index, size, withByteChanged([leaf], 0, byte, delta)[0]!, proof, root))).to.equal(true);
        expect(rejected(() => verifyInclusion(index, size, leafHash(Buffer.concat([leaves[index]!, Buffer.from([delta])])), proof, root))).to.equal(true);
        expect(rejected(() => verifyInclusion(index, size, leaf, proof, withByteChanged([root], 0, byte, delta)[0]!))).to.equal(true);
        const otherIndex = other % size;
        if (otherIndex !== index) expect(rejected(() => verifyInclusion(otherIndex, size, leaf, proof, root))).to.equal(true);
        // RFC 9162's verifier binds the size through the proof's shape only: another size whose audit
        // path has the same shape leads to the same (true) root. The checkpoint's signature binds the size.
        if (other > index && inclusionProofPlan(index, other).length !== proof.length) {
          expect(rejected(() => verifyInclusion(index, other, leaf, proof, root))).to.equal(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('verifies every consistency proof, and no longer when a proof byte, a root or a size changes', () => {
    fc.assert(
      fc.property(twoSizes, change, fc.integer({ min: 1, max: MAX }), ([size1, size2], { which, byte, delta }, other) => {
        const proof = consistencyProof(tree, size1, size2);
        const root1 = tree.root(size1);
        const root2 = tree.root(size2);
        verifyConsistency(size1, size2, root1, root2, proof);
        if (proof.length > 0) expect(rejected(() => verifyConsistency(size1, size2, root1, root2, withByteChanged(proof, which, byte, delta)))).to.equal(true);
        expect(rejected(() => verifyConsistency(size1, size2, withByteChanged([root1], 0, byte, delta)[0]!, root2, proof))).to.equal(true);
        expect(rejected(() => verifyConsistency(size1, size2, root1, withByteChanged([root2], 0, byte, delta)[0]!, proof))).to.equal(true);
        // As for inclusion, another size changes the outcome when it changes the proof's shape.
        if (other <= size2 && consistencyProofPlan(other, size2).length !== proof.length) {
          expect(rejected(() => verifyConsistency(other, size2, root1, root2, proof))).to.equal(true);
        }
        if (other >= size1 && consistencyProofPlan(size1, other).length !== proof.length) {
          expect(rejected(() => verifyConsistency(size1, other, root1, root2, proof))).to.equal(true);
        }
        if (other < size1) expect(rejected(() => verifyConsistency(size1, other, root1, root2, proof))).to.equal(true);
      }),
      { numRuns: 400 },
    );
  });

  it('plans proofs that read O(log n) subtrees, up to 2^53 leaves', () => {
    const big = fc.integer({ min: 2, max: Number.MAX_SAFE_INTEGER });
    fc.assert(
      fc.property(
        big.chain((n) => fc.tuple(fc.nat({ max: n - 1 }), fc.constant(n))),
        ([m, n]) => {
          const bits = Math.ceil(Math.log2(n));
          // What `readProof` asks the store for: every subtree of the plan's nodes.
          expect(inclusionProofPlan(Math.min(m, n - 1), n).flat().length).to.be.at.most(2 * bits);
          expect(consistencyProofPlan(Math.max(m, 1), n).flat().length).to.be.at.most(2 * bits + 1);
          expect(inclusionProofPlan(Math.min(m, n - 1), n).length).to.be.at.most(bits);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('appends to a frontier in O(log n), reporting each completed subtree, and restores it from its hashes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 600 }), (size) => {
        const range = new CompactRange();
        const completed = new Map<string, Buffer>();
        for (let i = 0; i < size; i++) {
          for (const subtree of range.append(tree.leafHash(i))) completed.set(`${subtree.level}/${subtree.index}`, Buffer.from(subtree.hash));
        }
        expect(range.root().equals(tree.root(size))).to.equal(true);
        expect(range.hashes.length).to.equal(frontierIds(size).length);
        for (const [key, hash] of completed) {
          const [level, index] = key.split('/').map(Number) as [number, number];
          expect(hash.equals(tree.subtreeHash({ level, index })), key).to.equal(true);
        }
        const restored = new CompactRange(size, range.hashes);
        restored.append(tree.leafHash(size));
        expect(restored.root().equals(tree.root(size + 1))).to.equal(true);
      }),
      { numRuns: 100 },
    );
  });

  it('reads a planned proof with one batched read, as a store answers it', async () => {
    const calls: number[] = [];
    const read = async (ids: Array<{ level: number; index: number }>) => {
      calls.push(ids.length);
      return ids.map((id) => tree.subtreeHash(id));
    };
    for (const [index, size] of [
      [0, 1],
      [5, 2999],
      [2998, 2999],
      [1023, 1024],
      [700, 1500],
    ] as const) {
      expect((await readProof(inclusionProofPlan(index, size), read)).map((h) => h.toString('hex'))).to.deep.equal(
        inclusionProof(tree, index, size).map((h) => h.toString('hex')),
      );
    }
    expect((await readProof(consistencyProofPlan(1000, 2999), read)).map((h) => h.toString('hex'))).to.deep.equal(
      consistencyProof(tree, 1000, 2999).map((h) => h.toString('hex')),
    );
    // One read per proof; the one-leaf tree's proof is empty and reads nothing.
    expect(calls).to.have.length(5);
    expect(await readProof(inclusionProofPlan(5, 2999), () => []).catch((e: Error) => e.message)).to.equal('asked for 19 subtree hashes, got 0');
  });

  it('folds a right-edge range once: later proofs of that tree size read fewer subtrees and are the same', async () => {
    const asked: number[] = [];
    const read = (ids: Array<{ level: number; index: number }>) => {
      asked.push(ids.length);
      return ids.map((id) => tree.subtreeHash(id));
    };
    const remembered = rememberRanges();
    const ranges = remembered(1);
    const hex = (hashes: Buffer[]) => hashes.map((h) => h.toString('hex'));
    // 2999 leaves: leaf 5's path ends in the range [2048, 2999), eight subtrees folded into one hash.
    const first = await readProof(inclusionProofPlan(5, 2999), read, ranges);
    const second = await readProof(inclusionProofPlan(6, 2999), read, ranges);
    expect(hex(first)).to.deep.equal(hex(inclusionProof(tree, 5, 2999)));
    expect(hex(second)).to.deep.equal(hex(inclusionProof(tree, 6, 2999)));
    expect(asked).to.deep.equal([19, 11]);
    // Another tree (scope) does not see the first one's ranges.
    await readProof(inclusionProofPlan(5, 2999), read, remembered(2));
    expect(asked[2]).to.equal(19);
  });

  it('refuses a frontier with the wrong number of hashes, and proofs of leaves past the size', () => {
    expect(() => new CompactRange(3, [tree.leafHash(0)])).to.throw(RangeError);
    expect(() => inclusionProof(tree, 5, 5)).to.throw(RangeError);
    expect(() => consistencyProof(tree, 6, 5)).to.throw(RangeError);
    expect(() => tree.subtreeHash({ level: 2, index: 750 })).to.throw(RangeError);
  });
});
