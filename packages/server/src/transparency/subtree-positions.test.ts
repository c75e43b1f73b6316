/**
 * Subtree numbers (subtree-positions.ts) against the order in which an appending tree completes
 * its subtrees: every subtree's number is its place in that order, for trees small and past 2^32.
 */
import { expect } from 'chai';
import { CompactRange, hasPosition, leafHash, MAX_POSITIONED_LEAVES, subtreePosition, subtreesOf } from './index.ts';

describe('subtree positions', () => {
  it('number the subtrees in the order appends complete them, with no gap', () => {
    const range = new CompactRange();
    let next = 0;
    for (let leaf = 0; leaf < 5000; leaf++) {
      for (const s of range.append(leafHash(Buffer.from(String(leaf))))) expect(subtreePosition(s.level, s.index)).to.equal(next++);
      expect(subtreesOf(range.size)).to.equal(next);
    }
  });

  it('stay exact for subtrees past 2^32 leaves and up to the largest tree numbered', () => {
    // The leaf after 2^40 leaves: 2^41 - 1 subtrees before it (2·2^40 − popcount(2^40)).
    expect(subtreePosition(0, 2 ** 40)).to.equal(2 ** 41 - 1);
    // The whole tree of 2^52 leaves is the last subtree it completes.
    expect(subtreePosition(52, 0)).to.equal(subtreesOf(MAX_POSITIONED_LEAVES) - 1);
    expect(subtreesOf(MAX_POSITIONED_LEAVES)).to.equal(2 ** 53 - 1);
    // Leaf 2^33 + 2^32 + 5 (popcount of the leaves before it: 2^33 + 2^32 + 5 → 4 bits).
    const leaves = 2 ** 33 + 2 ** 32 + 5;
    expect(subtreePosition(0, leaves)).to.equal(2 * leaves - 4);
  });

  it('refuse what they cannot number exactly', () => {
    expect(() => subtreesOf(MAX_POSITIONED_LEAVES + 1)).to.throw(RangeError);
    expect(() => subtreePosition(0, MAX_POSITIONED_LEAVES)).to.throw(RangeError);
    expect(() => subtreePosition(-1, 0)).to.throw(RangeError);
    expect(() => subtreePosition(0, 1.5)).to.throw(RangeError);
    // hasPosition says which have a number, as subtreePosition's check.
    expect([hasPosition(0, MAX_POSITIONED_LEAVES - 1), hasPosition(52, 0), hasPosition(1, 2 ** 51 - 1)]).to.deep.equal([true, true, true]);
    expect([hasPosition(0, MAX_POSITIONED_LEAVES), hasPosition(53, 0), hasPosition(1, 2 ** 51), hasPosition(-1, 0), hasPosition(0, 1.5)]).to.deep.equal([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
