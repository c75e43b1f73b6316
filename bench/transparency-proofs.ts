// Time to compute inclusion and consistency proofs over an in-memory subtree store of
// 10,000,000 leaves (issue 34): `npx tsx bench/transparency-proofs.ts [leaves] [proofs]`.
import { consistencyProof, inclusionProof, MemoryTree, verifyConsistency, verifyInclusion } from '../packages/server/src/transparency/index.ts';

const size = Number(process.argv[2] ?? 10_000_000);
const count = Number(process.argv[3] ?? 10_000);
const tree = new MemoryTree();
const leaf = Buffer.alloc(8);
let started = performance.now();
for (let i = 0; i < size; i++) {
  leaf.writeDoubleBE(i);
  tree.appendLeaf(leaf);
}
console.log(`appended ${size} leaves in ${((performance.now() - started) / 1000).toFixed(1)} s, RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);

function measure(name: string, make: (i: number) => () => void): void {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const task = make(i);
    started = performance.now();
    task();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(3);
  console.log(`${name}: ${count} proofs, median ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`);
}

const random = (below: number) => Math.floor(Math.random() * below);
const root = tree.root(size);
measure('inclusion proof', () => {
  const index = random(size);
  return () => void inclusionProof(tree, index, size);
});
measure('consistency proof', () => {
  const from = 1 + random(size - 1);
  return () => void consistencyProof(tree, from, size);
});
measure('inclusion proof + verification', () => {
  const index = random(size);
  return () => verifyInclusion(index, size, tree.leafHash(index), inclusionProof(tree, index, size), root);
});
measure('consistency proof + verification', () => {
  const from = 1 + random(size - 1);
  return () => verifyConsistency(from, size, tree.root(from), root, consistencyProof(tree, from, size));
});
