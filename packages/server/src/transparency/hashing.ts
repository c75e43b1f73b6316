import { createHash } from 'node:crypto';

/** Every hash in the log is a SHA-256 digest of this many bytes. */
export const HASH_SIZE = 32;

/** A SHA-256 digest (32 bytes). Buffers are Uint8Arrays, so either may be passed. */
export type Hash = Uint8Array;

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** RFC 9162 section 2.1.1: the hash of a leaf is SHA-256(0x00 ‖ leaf). */
export function leafHash(leaf: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(leaf).digest();
}

/** RFC 9162 section 2.1.1: the hash of an inner node is SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** RFC 9162 section 2.1.1: the root of the empty tree is SHA-256 of nothing. */
export function emptyRoot(): Buffer {
  return createHash('sha256').digest();
}

/** True when `a` and `b` hold the same bytes (hashes are public, so no constant time is needed). */
export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/**
 * The largest power of two strictly below `n` (n ≥ 2): the split point k of RFC 9162's MTH.
 * Arithmetic, not bit operators: JavaScript's bit operators truncate to 32 bits.
 */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Throws a RangeError unless `value` is a whole number in [0, 2^53). */
export function assertCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${what} must be a whole number from 0 to 2^53-1, got ${value}`);
  }
}
