import { foldRight, frontierIds, type SubtreeId } from './compact-range.ts';
import { assertCount, splitPoint, type Hash } from './hashing.ts';

/**
 * One hash of a proof, described as the complete subtrees (left to right) whose RFC 9162 MTH it
 * is. Most are one subtree; a range on the tree's right edge is several.
 */
export type ProofNode = readonly SubtreeId[];

/** The hashes a proof consists of, in proof order, before any hash is read. */
export type ProofPlan = readonly ProofNode[];

/** Reads the hash of a complete subtree; a store implements it with its stored subtree hashes. */
export interface SubtreeSource {
  subtreeHash(id: SubtreeId): Hash;
}

/**
 * The plan of RFC 9162 section 2.1.3.1's inclusion proof (audit path) for leaf `index` in a tree
 * of `size` leaves: O(log size) subtrees, so a store can fetch them in one query.
 */
export function inclusionProofPlan(index: number, size: number): ProofPlan {
  assertCount(index, 'leaf index');
  assertCount(size, 'tree size');
  if (index >= size) throw new RangeError(`leaf index ${index} is not below the tree size ${size}`);
  const plan: ProofNode[] = [];
  auditPath(index, 0, size, plan);
  return plan;
}

/**
 * The plan of RFC 9162 section 2.1.4.1's consistency proof from a tree of `from` leaves to one of
 * `to` leaves (from ≤ to); empty when from is 0 or from equals to.
 */
export function consistencyProofPlan(from: number, to: number): ProofPlan {
  assertCount(from, 'older tree size');
  assertCount(to, 'newer tree size');
  if (from > to) throw new RangeError(`older tree size ${from} is above the newer tree size ${to}`);
  const plan: ProofNode[] = [];
  if (from > 0 && from < to) subproof(from, 0, to, true, plan);
  return plan;
}

/** The plan of the root of a tree of `size` leaves: its frontier (one node; empty for size 0). */
export function rootPlan(size: number): ProofNode {
  return frontierIds(size);
}

/** A string key for a subtree id, for maps of fetched hashes. */
export function subtreeKey(id: SubtreeId): string {
  return `${id.level}/${id.index}`;
}

/** Computes the proof's hashes from a plan, reading each subtree's hash with `hashOf`. */
export function assembleProof(plan: ProofPlan, hashOf: (id: SubtreeId) => Hash): Buffer[] {
  return plan.map((node) => Buffer.from(foldRight(node.map(hashOf))));
}

/**
 * The hashes of ranges of several subtrees (a proof's nodes on the tree's right edge), remembered
 * once folded: a range of complete subtrees always has the same hash, and every proof against one
 * tree size shares its right edge. `get`/`set` take the node; `readProof` uses them when given.
 */
export interface RangeHashes {
  get(node: ProofNode): Hash | undefined;
  set(node: ProofNode, hash: Hash): void;
}

/**
 * `RangeHashes` for each of several trees (`scope`: an organisation's id), sharing one bound of
 * `max` ranges in all (all forgotten when full, then remembered again).
 */
export function rememberRanges(max = 10_000): (scope: number) => RangeHashes {
  const hashes = new Map<string, Hash>();
  return (scope) => {
    const keyOf = (node: ProofNode) => `${scope}:${node.map(subtreeKey).join()}`;
    return {
      get: (node) => hashes.get(keyOf(node)),
      set(node, hash) {
        if (hashes.size >= max) hashes.clear();
        hashes.set(keyOf(node), hash);
      },
    };
  };
}

/**
 * Reads every subtree a plan needs with one call of `read` (a store's one query; it answers the
 * hashes in the order of the ids it is given, repeated ids too) and assembles the proof's hashes.
 * The hashes may be the very buffers `read` or `ranges` keep: read them, never write to them.
 */
export async function readProof(
  plan: ProofPlan,
  read: (ids: SubtreeId[]) => Promise<readonly Hash[]> | readonly Hash[],
  ranges?: RangeHashes,
): Promise<Buffer[]> {
  const folded: Array<Hash | undefined> = plan.map((node) => (node.length > 1 ? ranges?.get(node) : undefined));
  const ids: SubtreeId[] = [];
  for (let n = 0; n < plan.length; n++) if (!folded[n]) ids.push(...plan[n]!);
  const hashes = ids.length ? await read(ids) : [];
  if (hashes.length !== ids.length) throw new Error(`asked for ${ids.length} subtree hashes, got ${hashes.length}`);
  let next = 0;
  return plan.map((node, n) => {
    let hash = folded[n];
    if (!hash) {
      hash = node.length === 1 ? hashes[next]! : foldRight(hashes.slice(next, next + node.length));
      next += node.length;
      if (node.length > 1) ranges?.set(node, hash);
    }
    return Buffer.isBuffer(hash) ? hash : Buffer.from(hash);
  });
}

/** The inclusion proof of leaf `index` in the tree of `size` leaves held by `source`. */
export function inclusionProof(source: SubtreeSource, index: number, size: number): Buffer[] {
  return assembleProof(inclusionProofPlan(index, size), (id) => source.subtreeHash(id));
}

/** The consistency proof from the tree of `from` leaves to the tree of `to` leaves in `source`. */
export function consistencyProof(source: SubtreeSource, from: number, to: number): Buffer[] {
  return assembleProof(consistencyProofPlan(from, to), (id) => source.subtreeHash(id));
}

/** The root hash of the tree of `size` leaves held by `source`. */
export function treeRoot(source: SubtreeSource, size: number): Buffer {
  return Buffer.from(foldRight(rootPlan(size).map((id) => source.subtreeHash(id))));
}

// PATH(m, D[start:end]) of RFC 9162 2.1.3.1: the deeper hashes first, then the sibling.
function auditPath(m: number, start: number, end: number, out: ProofNode[]): void {
  const size = end - start;
  if (size <= 1) return;
  const k = splitPoint(size);
  if (m < k) {
    auditPath(m, start, start + k, out);
    out.push(rangeIds(start + k, end));
  } else {
    auditPath(m - k, start + k, end, out);
    out.push(rangeIds(start, start + k));
  }
}

// SUBPROOF(m, D[start:end], b) of RFC 9162 2.1.4.1.
function subproof(m: number, start: number, end: number, complete: boolean, out: ProofNode[]): void {
  const size = end - start;
  if (m === size) {
    if (!complete) out.push(rangeIds(start, end));
    return;
  }
  const k = splitPoint(size);
  if (m <= k) {
    subproof(m, start, start + k, complete, out);
    out.push(rangeIds(start + k, end));
  } else {
    subproof(m - k, start + k, end, false, out);
    out.push(rangeIds(start, start + k));
  }
}

// The complete subtrees of MTH(D[start:end]): one per set bit of the size, largest first. The
// ranges the proofs above visit always start at a multiple of each subtree's width.
function rangeIds(start: number, end: number): SubtreeId[] {
  const ids: SubtreeId[] = [];
  let width = 1;
  let level = 0;
  while (width * 2 <= end - start) {
    width *= 2;
    level++;
  }
  for (let at = start; at < end; width /= 2, level--) {
    if (end - at < width) continue;
    if (at % width !== 0) throw new Error(`internal: range [${start}, ${end}) is not made of stored subtrees`);
    ids.push({ level, index: at / width });
    at += width;
  }
  return ids;
}
