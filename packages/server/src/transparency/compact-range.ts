import { assertCount, emptyRoot, HASH_SIZE, nodeHash, type Hash } from './hashing.ts';

/** A complete subtree: the 2^level leaves starting at index × 2^level. */
export interface SubtreeId {
  readonly level: number;
  readonly index: number;
}

/** A complete subtree with its hash. */
export interface Subtree extends SubtreeId {
  readonly hash: Hash;
}

/**
 * The complete subtrees that make up [0, size), largest (leftmost) first: one per set bit of
 * `size`. This is the tree's right edge ("frontier"); its hashes give the root of any size.
 */
export function frontierIds(size: number): SubtreeId[] {
  assertCount(size, 'tree size');
  const ids: SubtreeId[] = [];
  let start = 0;
  for (let width = highestPowerOfTwoAtMost(size), level = Math.log2(width); width >= 1; width /= 2, level--) {
    if (size - start >= width) {
      ids.push({ level, index: start / width });
      start += width;
    }
  }
  return ids;
}

/** RFC 9162's MTH of a tree whose complete subtrees from left to right are `hashes` (right fold). */
export function foldRight(hashes: readonly Hash[]): Hash {
  if (hashes.length === 0) return emptyRoot();
  let root = hashes[hashes.length - 1]!;
  for (let i = hashes.length - 2; i >= 0; i--) root = nodeHash(hashes[i]!, root);
  return root;
}

/**
 * The right edge of an append-only Merkle tree: O(log n) hashes from which the root is computed
 * and to which a leaf is appended in O(log n). This is what a store keeps per log, together with
 * the subtrees each append completes (returned by `append`), so proofs read O(log n) stored hashes.
 */
export class CompactRange {
  #size: number;
  readonly #hashes: Hash[];

  /**
   * A frontier of a tree of `size` leaves: `hashes` are its complete subtrees, largest first, as
   * `frontierIds(size)` lists them (empty for a new tree).
   */
  constructor(size = 0, hashes: readonly Hash[] = []) {
    assertCount(size, 'tree size');
    const expected = frontierIds(size).length;
    if (hashes.length !== expected) {
      throw new RangeError(`a tree of ${size} leaves has ${expected} frontier hashes, got ${hashes.length}`);
    }
    for (const hash of hashes) {
      if (hash.length !== HASH_SIZE) throw new RangeError(`frontier hashes are ${HASH_SIZE} bytes`);
    }
    this.#size = size;
    this.#hashes = hashes.map((hash) => Buffer.from(hash));
  }

  /** The number of leaves appended so far. */
  get size(): number {
    return this.#size;
  }

  /** The frontier's hashes, largest subtree first (copies). */
  get hashes(): Buffer[] {
    return this.#hashes.map((hash) => Buffer.from(hash));
  }

  /** The ids of the frontier's subtrees, in the order of `hashes`. */
  get ids(): SubtreeId[] {
    return frontierIds(this.#size);
  }

  /**
   * Appends the leaf with hash `leafHash` and returns every complete subtree this completes,
   * smallest first: the leaf itself (level 0), then each parent whose right child it closed.
   */
  append(leafHash: Hash): Subtree[] {
    if (leafHash.length !== HASH_SIZE) throw new RangeError(`a leaf hash is ${HASH_SIZE} bytes`);
    if (this.#size + 1 > Number.MAX_SAFE_INTEGER) throw new RangeError('the tree is full');
    let hash: Hash = Buffer.from(leafHash);
    let index = this.#size;
    const completed: Subtree[] = [{ level: 0, index, hash }];
    for (let level = 1, rest = this.#size; rest % 2 === 1; level++, rest = Math.floor(rest / 2)) {
      hash = nodeHash(this.#hashes.pop()!, hash);
      index = Math.floor(index / 2);
      completed.push({ level, index, hash });
    }
    this.#hashes.push(hash);
    this.#size += 1;
    return completed;
  }

  /** The tree's root hash (RFC 9162 MTH); the empty tree's is SHA-256(""). */
  root(): Buffer {
    return Buffer.from(foldRight(this.#hashes));
  }
}

/** RFC 9162 MTH of the leaves with these hashes, in order. */
export function rootOfLeafHashes(leafHashes: Iterable<Hash>): Buffer {
  const range = new CompactRange();
  for (const hash of leafHashes) range.append(hash);
  return range.root();
}

function highestPowerOfTwoAtMost(n: number): number {
  if (n === 0) return 0;
  let width = 1;
  while (width * 2 <= n) width *= 2;
  return width;
}
