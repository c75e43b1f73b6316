import { check } from './errors.ts';
import { MAX_PROOF_HASHES } from './encoding.ts';
import { assertCount, HASH_SIZE, nodeHash, sameHash, type Hash } from './hashing.ts';

/**
 * RFC 9162 section 2.1.3.2: the root that the inclusion proof of the leaf with hash `leafHash`
 * at `index` in a tree of `size` leaves leads to. Throws a VerificationError when the proof
 * cannot be one for that index and size.
 */
export function rootFromInclusionProof(index: number, size: number, leafHash: Hash, proof: readonly Hash[]): Buffer {
  assertCount(index, 'leaf index');
  assertCount(size, 'tree size');
  check(index < size, 'index-out-of-range', `leaf index ${index} is not below the tree size ${size}`);
  check(leafHash.length === HASH_SIZE, 'malformed-hash', `a leaf hash is ${HASH_SIZE} bytes`);
  checkProofHashes(proof);
  let fn = index;
  let sn = size - 1;
  let r: Hash = leafHash;
  for (const p of proof) {
    check(sn !== 0, 'proof-length', `the inclusion proof has more hashes than leaf ${index} of ${size} needs`);
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn / 2, Math.floor(sn / 2)];
    } else {
      r = nodeHash(r, p);
    }
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  }
  check(sn === 0, 'proof-length', `the inclusion proof has fewer hashes than leaf ${index} of ${size} needs`);
  return Buffer.from(r);
}

/**
 * RFC 9162 section 2.1.3.2: throws a VerificationError unless `proof` proves that the leaf with
 * hash `leafHash` is at `index` in the tree of `size` leaves whose root is `root`.
 */
export function verifyInclusion(index: number, size: number, leafHash: Hash, proof: readonly Hash[], root: Hash): void {
  check(root.length === HASH_SIZE, 'malformed-hash', `a root hash is ${HASH_SIZE} bytes`);
  const computed = rootFromInclusionProof(index, size, leafHash, proof);
  check(sameHash(computed, root), 'inclusion-root-mismatch', `the inclusion proof of leaf ${index} does not lead to the root of the tree of ${size} leaves`);
}

/**
 * RFC 9162 section 2.1.4.2: throws a VerificationError unless `proof` proves that the tree of
 * `size1` leaves with root `root1` is a prefix of the tree of `size2` leaves with root `root2`.
 * Equal sizes need equal roots and an empty proof; the empty tree is a prefix of every tree.
 */
export function verifyConsistency(size1: number, size2: number, root1: Hash, root2: Hash, proof: readonly Hash[]): void {
  assertCount(size1, 'older tree size');
  assertCount(size2, 'newer tree size');
  check(root1.length === HASH_SIZE && root2.length === HASH_SIZE, 'malformed-hash', `a root hash is ${HASH_SIZE} bytes`);
  check(size1 <= size2, 'size-order', `the older tree size ${size1} is above the newer tree size ${size2}`);
  checkProofHashes(proof);
  if (size1 === size2 || size1 === 0) {
    check(proof.length === 0, 'proof-length', `a consistency proof from ${size1} to ${size2} leaves is empty`);
    check(size1 !== size2 || sameHash(root1, root2), 'consistency-new-root-mismatch', `two trees of ${size1} leaves have different roots`);
    return;
  }
  check(proof.length > 0, 'proof-length', `a consistency proof from ${size1} to ${size2} leaves is not empty`);
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : [...proof];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) [fn, sn] = [(fn - 1) / 2, Math.floor(sn / 2)];
  let fr: Hash = path[0]!;
  let sr: Hash = path[0]!;
  for (const c of path.slice(1)) {
    check(sn !== 0, 'proof-length', `the consistency proof has more hashes than ${size1} to ${size2} needs`);
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn / 2, Math.floor(sn / 2)];
    } else {
      sr = nodeHash(sr, c);
    }
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  }
  check(sn === 0, 'proof-length', `the consistency proof has fewer hashes than ${size1} to ${size2} needs`);
  check(sameHash(fr, root1), 'consistency-old-root-mismatch', `the consistency proof does not lead to the root of the older tree (${size1} leaves)`);
  check(sameHash(sr, root2), 'consistency-new-root-mismatch', `the consistency proof does not lead to the root of the newer tree (${size2} leaves)`);
}

function checkProofHashes(proof: readonly Hash[]): void {
  check(proof.length <= MAX_PROOF_HASHES, 'malformed-proof', `a proof has at most ${MAX_PROOF_HASHES} hashes`);
  proof.forEach((hash, i) => check(hash.length === HASH_SIZE, 'malformed-proof', `proof hash ${i} is not ${HASH_SIZE} bytes`));
}

function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}
