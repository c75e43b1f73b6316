/**
 * The upper subtrees kept in memory (subtree-cache.ts): proofs from them equal an in-memory
 * tree's, and once a proof has read them, the next proofs ask the database only for the lower
 * levels; read in runs, a level fills from a few proofs; the bounds drop or skip, never answer wrong.
 */
import { expect } from 'chai';
import { consistencyProof, consistencyProofPlan, inclusionProof, inclusionProofPlan, MemoryTree, readProof, type SubtreeId } from '../transparency/index.ts';
import { keepUpperSubtrees, keptRun, lowestKeptLevel, type KeptSubtreeOptions } from './subtree-cache.ts';

describe('the upper subtrees of a log kept in memory', () => {
  const tree = MemoryTree.fromLeaves(Array.from({ length: 5000 }, (_, i) => Buffer.from(`{"seq":${i + 1}}`)));
  const hex = (hashes: readonly Uint8Array[]) => hashes.map((h) => Buffer.from(h).toString('hex'));

  /** A store's read over `tree` for organisation 1, recording what each call asked for; with `runs`, its run reads too. */
  function counted(options: Omit<KeptSubtreeOptions, 'readRun'> & { runs?: boolean } = {}) {
    const asked: SubtreeId[][] = [];
    const runs: Array<{ level: number; from: number }> = [];
    const readRun: KeptSubtreeOptions['readRun'] = (organizationId, level, from, to) => {
      if (organizationId !== 1) throw new Error(`organisation #${organizationId} has no log`);
      runs.push({ level, from });
      const stored: Array<[number, Buffer]> = [];
      // Only complete subtrees are stored.
      for (let index = from; index < to && (index + 1) * 2 ** level <= tree.size; index++)
        stored.push([index, Buffer.from(tree.subtreeHash({ level, index }))]);
      return stored;
    };
    const read = keepUpperSubtrees(
      async (organizationId, ids) => {
        if (organizationId !== 1) throw new Error(`organisation #${organizationId} has no log`);
        asked.push([...ids]);
        return ids.map((id) => tree.subtreeHash(id));
      },
      { ...options, ...(options.runs ? { readRun } : {}) },
    );
    return { asked, runs, read };
  }
  const proofOf = (read: ReturnType<typeof counted>['read'], index: number, size: number) => readProof(inclusionProofPlan(index, size), (ids) => read(1, ids));

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

  it('reads a kept level in runs, so that proofs of leaves nearby read none of it again', async () => {
    const { asked, runs, read } = counted({ runs: true });
    expect(hex(await proofOf(read, 4321, 5000))).to.deep.equal(hex(inclusionProof(tree, 4321, 5000)));
    // Level 6's sibling of leaf 4321 is subtree 66: the run of 64 from 64 was read, not the subtree alone.
    expect(runs).to.deep.include({ level: lowestKeptLevel, from: keptRun });
    expect(asked.flat().every((id) => id.level < lowestKeptLevel)).to.equal(true);
    const before = runs.length;
    // Leaf 4200's sibling at level 6 is subtree 64, in the same run: no run is read again.
    expect(hex(await proofOf(read, 4200, 5000))).to.deep.equal(hex(inclusionProof(tree, 4200, 5000)));
    expect(runs.length).to.equal(before);
    for (let i = 0; i < 200; i++) {
      const size = 1 + Math.floor(Math.random() * 5000);
      const index = Math.floor(Math.random() * size);
      expect(hex(await proofOf(read, index, size)), `${index} of ${size}`).to.deep.equal(hex(inclusionProof(tree, index, size)));
    }
  });

  it('answers right whatever the bounds drop or skip', async () => {
    for (const bounds of [{ maxLevelSubtrees: 16 }, { maxBytes: keptRun * 33 }, { maxBytes: 10 }]) {
      for (const runs of [false, true]) {
        const { asked, read } = counted({ ...bounds, runs });
        for (let i = 0; i < 100; i++) {
          const size = 1 + Math.floor(Math.random() * 5000);
          const index = Math.floor(Math.random() * size);
          expect(hex(await proofOf(read, index, size)), `${JSON.stringify(bounds)}: ${index} of ${size}`).to.deep.equal(hex(inclusionProof(tree, index, size)));
        }
        // Beyond the bounds, kept levels are read again.
        if (!runs) expect(asked.slice(1).some((ids) => ids.some((id) => id.level >= lowestKeptLevel))).to.equal(true);
      }
    }
  });
});
