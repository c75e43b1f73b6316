/**
 * Complete subtrees numbered in the order they complete as leaves are appended: leaf 0 is 0,
 * leaf 1 is 1, their parent 2, leaf 2 is 3, leaf 3 is 4, its parent 5, the parent of both 6, ...
 * (a post-order). The subtrees one append completes, and those of a run of appends, have
 * consecutive numbers after every earlier one: keyed by it, a store writes each batch's subtrees
 * next to each other instead of at one place per level.
 */
import type { SubtreeId } from './compact-range.ts';

/** Trees of more leaves would number subtrees past 2^53 (JavaScript's exact integers). */
export const MAX_POSITIONED_LEAVES = 2 ** 52;

/** How many complete subtrees a tree of `size` leaves has: 2·size − popcount(size). */
export function subtreesOf(size: number): number {
  checkLeaves(size);
  return 2 * size - popcount(size);
}

/** Whether subtree `level`/`index` has a number: it lies within the first 2^52 leaves. */
export function hasPosition(level: number, index: number): boolean {
  return Number.isInteger(level) && level >= 0 && level <= 52 && Number.isInteger(index) && index >= 0 && (index + 1) * 2 ** level <= MAX_POSITIONED_LEAVES;
}

/** The number of subtree `level`/`index`: the subtrees complete before it, all of them from the leaves before its last. */
export function subtreePosition(level: number, index: number): number {
  if (!hasPosition(level, index)) throw new RangeError(`no numbered subtree ${level}/${index} (numbers cover the first 2^52 leaves)`);
  // It completes with leaf `last`, after the subtrees of the `last` leaves before and the `level` smaller ones `last` completes first.
  const last = (index + 1) * 2 ** level - 1;
  return subtreesOf(last) + level;
}

/** `subtreePosition` of each of `ids`. */
export const subtreePositions = (ids: readonly SubtreeId[]): number[] => ids.map((id) => subtreePosition(id.level, id.index));

function checkLeaves(size: number): void {
  if (!Number.isInteger(size) || size < 0 || size > MAX_POSITIONED_LEAVES)
    throw new RangeError(`a tree of ${size} leaves has no subtree numbers (at most 2^52 leaves)`);
}

function popcount(n: number): number {
  // Two 32-bit halves: bitwise operators see 32 bits only.
  const high = Math.floor(n / 2 ** 32);
  let count = 0;
  for (let half of [high, n - high * 2 ** 32]) {
    half -= (half >>> 1) & 0x55555555;
    half = (half & 0x33333333) + ((half >>> 2) & 0x33333333);
    count += (((half + (half >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return count;
}
