/**
 * The proofs' floor: a bare `node:http` server answering the inclusion and consistency proofs of
 * organisation `bench` from the same SQLite file with the server's own log reads (its prepared
 * statements and subtree cache, store/sqlite/log-reads.ts) and the same JSON, and nothing else:
 * no Koa, router, token, validation, metrics or request log. What a proof costs over HTTP on this
 * machine at the least; the server's figures are read against it.
 *
 *   node --import tsx bench/support/floor-proofs.ts FILE
 *
 * Prints {"msg":"listening","url":...}.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BetterSqlite3 } from '@trailproof/server/testing';
import { logReadsOn } from '../../packages/server/src/store/sqlite/log-reads.ts';
import { encodeProof, leafHash } from '../../packages/server/src/transparency/index.ts';

const raw = new BetterSqlite3(process.argv[2]!, { readonly: true });
raw.pragma('mmap_size = 2147483648');
const organizationId = raw.prepare(`select id from organizations where name = 'bench'`).pluck().get() as number;
const reads = logReadsOn(raw, () => 0);

async function answer(url: URL): Promise<object | null> {
  const number = (name: string) => Number(url.searchParams.get(name));
  if (url.pathname.endsWith('/proof/inclusion')) {
    const [index, size] = [number('index'), number('tree_size')];
    const [proof, [leaf]] = await Promise.all([reads.inclusionProofOf(organizationId, index, size), reads.logLeaves(organizationId, index, 1)]);
    return { index, tree_size: size, leaf: leaf!.leaf, leaf_hash: leafHash(Buffer.from(leaf!.leaf)).toString('base64'), proof: encodeProof(proof) };
  }
  if (url.pathname.endsWith('/proof/consistency')) {
    const [from, to] = [number('from'), number('to')];
    return { from, to, proof: encodeProof(await reads.consistencyProofOf(organizationId, from, to)) };
  }
  return null;
}

const server = createServer((req, res) => {
  answer(new URL(req.url!, 'http://floor')).then(
    (body) => {
      const text = JSON.stringify(body ?? { message: 'No such route' });
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    },
    (error: unknown) => {
      res.writeHead(500).end(String(error));
    },
  );
});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});
process.once('SIGTERM', () => server.close(() => raw.close()));
