/**
 * The upper subtrees kept in memory (subtree-cache.ts): proofs from them equal an in-memory
 * tree's, and once a proof has read them, the next proofs ask the database only for the lower levels.
 */
import { expect } from 'chai';
import { consistencyProof, consistencyProofPlan, inclusionProof, inclusionProofPlan, MemoryTree, readProof, type SubtreeId } from '../transparency/index.ts';
import { keepUpperSubtrees, lowestKeptLevel } from './subtree-cache.ts';

describe('the upper subtrees of a log kept in memory', () => {
  const tree = MemoryTree.fromLeaves(Array.from({ length: 5000 }, (_, i) => Buffer.from(`{"seq":${i + 1}}`)));
  const hex = (hashes: readonly Uint8Array[]) => hashes.map((h) => Buffer.from(h).toString('hex'));

  /** A store's read over `tree` for organisation 1, recording what each call asked for. */
  function counted() {
    const asked: SubtreeId[][] = [];
    const read = keepUpperSubtrees(async (organizationId, ids) => {
      if (organizationId !== 1) throw new Error(`organisation #${organizationId} has no log`);
      asked.push([...ids]);
      return ids.map((id) => tree.subtreeHash(id));
    });
    return { asked, read };
  }

  it('answers the proofs of an in-memory tree, and asks again only for the levels below the kept ones', async () => {
    const { asked, read } = counted();
    for (const [index, size] of [
      [4321, 5000],
      [17, 4999],
      [4321, 5000],
    ] as const) {
      const proof = await readProof(inclusionProofPlan(index, size), (ids) => read(1, ids));
      expect(hex(proof), `${index} of ${size}`).to.deep.equal(hex(inclusionProof(tree, index, size)));
    }
    expect(asked[0]!.some((id) => id.level >= lowestKeptLevel)).to.equal(true);
    // The same leaf again: only its lower levels are read.
    expect(asked[2]!.length).to.be.above(0);
    expect(asked[2]!.every((id) => id.level < lowestKeptLevel)).to.equal(true);
    for (const from of [1, 255, 256, 257, 3000, 4999]) {
      const proof = await readProof(consistencyProofPlan(from, 5000), (ids) => read(1, ids));
      expect(hex(proof), `${from} to 5000`).to.deep.equal(hex(consistencyProof(tree, from, 5000)));
    }
  });

  it("keeps each organisation's hashes apart", async () => {
    const { asked, read } = counted();
    await readProof(inclusionProofPlan(4321, 5000), (ids) => read(1, ids));
    const upper = asked[0]!.filter((id) => id.level >= lowestKeptLevel);
    // Organisation 2's read fails: nothing of organisation 1's kept hashes answers for it.
    expect(upper.length).to.be.above(0);
    let failed: unknown;
    await Promise.resolve(read(2, upper)).catch((error: unknown) => (failed = error));
    expect(String(failed)).to.match(/organisation #2 has no log/);
    // Organisation 1's are still kept: asked again, they are not read.
    expect(await read(1, upper)).to.have.length(upper.length);
    expect(asked).to.have.length(1);
  });
});
