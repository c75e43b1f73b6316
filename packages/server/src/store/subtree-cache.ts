/**
 * The hashes of a log's upper subtrees, kept in memory as proofs read them. A complete subtree's
 * hash never changes once stored, and every proof of a large tree reads the same upper levels: at
 * 10,000,000 leaves a proof reads about 24 subtrees, 18 of them at level 6 or above, of which the
 * whole tree has about 312,000 (10 MB of hashes). A proof then reads only its lower levels from
 * the database. Each kept level of an organisation is one buffer, 32 bytes a subtree at its index,
 * with a byte a subtree saying whether it is there: a hit is a view of that buffer.
 */
import { HASH_SIZE, type Hash, type SubtreeId } from '../transparency/index.ts';

/** Reads the hashes of an organisation's complete subtrees, answered in the order of `ids`. */
export type ReadSubtrees = (organizationId: number, ids: readonly SubtreeId[]) => Promise<readonly Hash[]> | readonly Hash[];

/**
 * Reads the stored subtrees of one level with an index from `from` to below `to`, as
 * `[index, hash]` pairs (those not complete yet are not stored, so not answered).
 */
export type ReadSubtreeRun = (organizationId: number, level: number, from: number, to: number) => ReadonlyArray<readonly [number, Hash]>;

/** Subtrees of this level (2^6 leaves) and above are kept: about a byte a leaf of the log. */
export const lowestKeptLevel = 6;

/** A subtree missing at a kept level is read with its neighbours, this many in one run (`readRun`). */
export const keptRun = 64;

export interface KeptSubtreeOptions {
  /** Reads a run of one level's subtrees: with it, a kept subtree not yet remembered is read with the other `keptRun` around it. */
  readRun?: ReadSubtreeRun;
  /** At most this many bytes are kept (all organisations; 64 MiB): beyond it everything is dropped and read again. */
  maxBytes?: number;
  /** At most this many subtrees a level (393,216: 12 MiB of hashes, a log of 25,165,824 leaves at level 6); those further right are read each time. */
  maxLevelSubtrees?: number;
}

/** One kept level: hashes at their index, and whether each is there. */
interface KeptLevel {
  hashes: Buffer;
  known: Uint8Array;
}

/**
 * `read` with the subtrees of level `lowestKeptLevel` and above remembered (bounded), per
 * organisation. With `readRun`, a kept subtree not yet remembered is read with the other
 * `keptRun` of its level around it, so that the kept levels fill after a few thousand proofs.
 */
export function keepUpperSubtrees(read: ReadSubtrees, options: KeptSubtreeOptions = {}): ReadSubtrees {
  const { readRun, maxBytes: maxKeptBytes = 64 * 2 ** 20, maxLevelSubtrees = 2 ** 18 + 2 ** 17 } = options;
  const kept = new Map<number, KeptLevel[]>();
  let keptBytes = 0;

  const find = (levels: KeptLevel[] | undefined, id: SubtreeId): Hash | undefined => {
    const level = levels?.[id.level];
    if (!level || id.index >= level.known.length || level.known[id.index] === 0) return undefined;
    return level.hashes.subarray(id.index * HASH_SIZE, (id.index + 1) * HASH_SIZE);
  };

  const keep = (organizationId: number, id: SubtreeId, hash: Hash) => {
    if (id.level < lowestKeptLevel || id.index >= maxLevelSubtrees) return;
    let levels = kept.get(organizationId);
    let level = levels?.[id.level];
    if (!level || id.index >= level.known.length) {
      const capacity = Math.min(maxLevelSubtrees, Math.max(keptRun, 2 ** Math.ceil(Math.log2(id.index + 1))));
      const grown = capacity * (HASH_SIZE + 1) - (level ? level.known.length * (HASH_SIZE + 1) : 0);
      if (keptBytes + grown > maxKeptBytes) {
        // Nothing kept and still too large: this level is read each time.
        if (keptBytes === 0) return;
        kept.clear();
        keptBytes = 0;
        return keep(organizationId, id, hash);
      }
      const larger: KeptLevel = { hashes: Buffer.allocUnsafe(capacity * HASH_SIZE), known: new Uint8Array(capacity) };
      if (level) {
        level.hashes.copy(larger.hashes);
        larger.known.set(level.known);
      }
      if (!levels) kept.set(organizationId, (levels = []));
      levels[id.level] = level = larger;
      keptBytes += grown;
    }
    level.hashes.set(hash, id.index * HASH_SIZE);
    level.known[id.index] = 1;
  };

  return (organizationId, ids) => {
    const hashes: Hash[] = new Array(ids.length);
    const missing: SubtreeId[] = [];
    const places: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      let hash = id.level >= lowestKeptLevel ? find(kept.get(organizationId), id) : undefined;
      if (!hash && readRun && id.level >= lowestKeptLevel && id.index < maxLevelSubtrees) {
        const from = id.index - (id.index % keptRun);
        for (const [index, found] of readRun(organizationId, id.level, from, from + keptRun)) keep(organizationId, { level: id.level, index }, found);
        hash = find(kept.get(organizationId), id);
      }
      if (hash) hashes[i] = hash;
      else {
        missing.push(id);
        places.push(i);
      }
    }
    if (!missing.length) return hashes;
    const fill = (found: readonly Hash[]) => {
      if (found.length !== missing.length) throw new Error(`asked for ${missing.length} subtree hashes, got ${found.length}`);
      for (let j = 0; j < missing.length; j++) {
        hashes[places[j]!] = found[j]!;
        keep(organizationId, missing[j]!, found[j]!);
      }
      return hashes;
    };
    const found = read(organizationId, missing);
    return 'then' in found ? found.then(fill) : fill(found);
  };
}
