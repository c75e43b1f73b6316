/**
 * What the proofs' floors answer (floor-proofs.ts, floor-proofs-koa.ts): the inclusion and
 * consistency proofs of organisation `bench` from a SQLite file, read with the server's own log
 * reads (its prepared statements and subtree cache, store/sqlite/log-reads.ts) and written as the
 * server's JSON. No token, validation, metrics or request log: those are the server's.
 */
import { BetterSqlite3 } from '@trailproof/server/testing';
import { logReadsOn } from '../../packages/server/src/store/sqlite/log-reads.ts';
import { encodeProof, leafHash } from '../../packages/server/src/transparency/index.ts';

export interface ProofAnswers {
  inclusion(index: number, treeSize: number): Promise<string>;
  consistency(from: number, to: number): Promise<string>;
  close(): void;
}

/** The floors' answers from `file` (opened read-only, mapped as the server maps it). */
export function openProofAnswers(file: string): ProofAnswers {
  const raw = new BetterSqlite3(file, { readonly: true });
  raw.pragma('mmap_size = 2147483648');
  const organizationId = raw.prepare(`select id from organizations where name = 'bench'`).pluck().get() as number;
  const reads = logReadsOn(raw, () => 0);
  return {
    async inclusion(index, treeSize) {
      const [proof, [leaf]] = await Promise.all([reads.inclusionProofOf(organizationId, index, treeSize), reads.logLeaves(organizationId, index, 1)]);
      const leafHashText = leafHash(Buffer.from(leaf!.leaf)).toString('base64');
      return JSON.stringify({ index, tree_size: treeSize, leaf: leaf!.leaf, leaf_hash: leafHashText, proof: encodeProof(proof) });
    },
    async consistency(from, to) {
      return JSON.stringify({ from, to, proof: encodeProof(await reads.consistencyProofOf(organizationId, from, to)) });
    },
    close: () => raw.close(),
  };
}

/** Prints the line the benchmark waits for (processes.ts, startBaseline). */
export const announce = (port: number) => console.log(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${port}` }));
