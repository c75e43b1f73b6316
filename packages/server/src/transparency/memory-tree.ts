import { CompactRange, type SubtreeId } from './compact-range.ts';
import { HASH_SIZE, leafHash, type Hash } from './hashing.ts';
import { treeRoot, type SubtreeSource } from './proofs.ts';

/**
 * An append-only Merkle tree held in memory: every complete subtree's hash, one flat buffer per
 * level, as a store keeps them in rows. For tests, benchmarks and building audit packages.
 */
export class MemoryTree implements SubtreeSource {
  readonly #range = new CompactRange();
  #levels: Buffer[] = [];

  /** A tree of these leaves (raw leaf bytes, hashed with the 0x00 prefix). */
  static fromLeaves(leaves: Iterable<Uint8Array>): MemoryTree {
    const tree = new MemoryTree();
    for (const leaf of leaves) tree.appendLeaf(leaf);
    return tree;
  }

  /** The number of leaves. */
  get size(): number {
    return this.#range.size;
  }

  /** Appends a leaf given as raw bytes; returns its index. */
  appendLeaf(leaf: Uint8Array): number {
    return this.appendLeafHash(leafHash(leaf));
  }

  /** Appends a leaf given as its leaf hash; returns its index. */
  appendLeafHash(hash: Hash): number {
    const index = this.#range.size;
    for (const subtree of this.#range.append(hash)) this.#store(subtree.level, subtree.index, subtree.hash);
    return index;
  }

  /** The hash of a complete subtree (a view of the stored bytes: do not modify). */
  subtreeHash(id: SubtreeId): Buffer {
    const level = this.#levels[id.level];
    if (level === undefined || !Number.isSafeInteger(id.index) || id.index < 0 || (id.index + 1) * 2 ** id.level > this.size) {
      throw new RangeError(`subtree ${id.level}/${id.index} is not complete in a tree of ${this.size} leaves`);
    }
    return level.subarray(id.index * HASH_SIZE, (id.index + 1) * HASH_SIZE);
  }

  /** The leaf hash at `index`. */
  leafHash(index: number): Buffer {
    return this.subtreeHash({ level: 0, index });
  }

  /** The root of the tree of the first `size` leaves (default: all of them). */
  root(size = this.size): Buffer {
    if (size > this.size) throw new RangeError(`the tree has ${this.size} leaves, not ${size}`);
    return size === this.size ? this.#range.root() : treeRoot(this, size);
  }

  /** The frontier (right edge) of the whole tree, as a store would persist it. */
  frontier(): CompactRange {
    return new CompactRange(this.size, this.#range.hashes);
  }

  #store(level: number, index: number, hash: Hash): void {
    let buffer = this.#levels[level] ?? Buffer.alloc(0);
    const end = (index + 1) * HASH_SIZE;
    if (end > buffer.length) {
      const grown = Buffer.alloc(Math.max(end, buffer.length * 2, 64 * HASH_SIZE));
      buffer.copy(grown);
      buffer = grown;
    }
    buffer.set(hash, index * HASH_SIZE);
    this.#levels[level] = buffer;
  }
}
