/**
 * The hashes of a log's upper subtrees, kept in memory as proofs read them. A complete subtree's
 * hash never changes once stored, and every proof of a large tree reads the same upper levels: at
 * 10,000,000 leaves a proof reads about 24 subtrees, 16 of them at level 8 or above, of which the
 * whole tree has about 78,000 (2.5 MB of hashes). A proof then reads only its lower levels from
 * the database.
 */
import type { Hash, SubtreeId } from '../transparency/index.ts';

/** Reads the hashes of an organisation's complete subtrees, answered in the order of `ids`. */
export type ReadSubtrees = (organizationId: number, ids: readonly SubtreeId[]) => Promise<readonly Hash[]> | readonly Hash[];

/** Subtrees of this level (2^8 leaves) and above are kept. */
export const lowestKeptLevel = 8;

/** At most this many hashes are kept (all organisations): beyond it they are dropped and read again. */
const maxKept = 200_000;

/** `read` with the subtrees of level `lowestKeptLevel` and above remembered (bounded), per organisation. */
export function keepUpperSubtrees(read: ReadSubtrees): ReadSubtrees {
  const kept = new Map<number, Map<number, Hash>>();
  let count = 0;
  // Levels fit in 6 bits and an index below 2^47 (tree sizes below 2^47): a number key, exact.
  const keyOf = (id: SubtreeId) => id.index * 64 + id.level;
  return (organizationId, ids) => {
    const known = kept.get(organizationId);
    const hashes: Hash[] = new Array(ids.length);
    const missing: SubtreeId[] = [];
    const places: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const hash = id.level >= lowestKeptLevel ? known?.get(keyOf(id)) : undefined;
      if (hash) hashes[i] = hash;
      else {
        missing.push(id);
        places.push(i);
      }
    }
    if (!missing.length) return hashes;
    const fill = (found: readonly Hash[]) => {
      if (found.length !== missing.length) throw new Error(`asked for ${missing.length} subtree hashes, got ${found.length}`);
      let into = known;
      for (let j = 0; j < missing.length; j++) {
        const id = missing[j]!;
        hashes[places[j]!] = found[j]!;
        if (id.level < lowestKeptLevel) continue;
        if (count >= maxKept) {
          kept.clear();
          count = 0;
          into = undefined;
        }
        if (!into) kept.set(organizationId, (into = new Map()));
        into.set(keyOf(id), found[j]!);
        count++;
      }
      return hashes;
    };
    const found = read(organizationId, missing);
    return 'then' in found ? found.then(fill) : fill(found);
  };
}
