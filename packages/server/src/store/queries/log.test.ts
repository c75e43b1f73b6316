// @database
/**
 * The transparency log in the store (issue 34), on SQLite or PostgreSQL: the chain's records are
 * the tree's leaves in order, appended in the transactions that store the evidence; proofs read
 * from the stored subtrees equal an in-memory tree's; checkpoints are signed by the published key;
 * a database kept from before migration 0017 gets its records as leaves.
 */
import { expect } from 'chai';
import {
  consistencyProof,
  inclusionProof,
  CompactRange,
  leafHash,
  MemoryTree,
  openCheckpoint,
  parseVerifierKey,
  verifyConsistency,
  verifyInclusion,
} from '../../transparency/index.ts';
import { migrationsUndone, testBackend, type TestServer } from '@trailproof/server/testing';
import { builtTesting } from '../../../../../test/support/built-testing.ts';
import type { Store } from '@trailproof/server';

describe('transparency log in the store', () => {
  let server: TestServer;
  beforeEach(async () => (server = await (await builtTesting()).startTestServer()));
  afterEach(() => server.close());

  const begin = (name: string, org = 'acme') =>
    server.request('PUT', `/api/v2/trails/${org}/app`, {
      token: org === 'acme' ? server.token : server.otherToken,
      form: { data_json: JSON.stringify({ name }) },
    });
  const attest = (trail: string, name: string, org = 'acme') =>
    server.request('POST', `/api/v2/attestations/${org}/app/trail/${trail}/generic`, {
      token: org === 'acme' ? server.token : server.otherToken,
      form: { data_json: JSON.stringify({ attestation_name: name, is_compliant: true }) },
    });

  async function orgId(store: Store, name: string): Promise<number> {
    return (await store.findOrganization(name))!.id;
  }

  /** The tree of the organisation's chain records, rebuilt in memory from the leaves the store lists. */
  async function rebuilt(store: Store, organizationId: number): Promise<{ tree: MemoryTree; leaves: string[] }> {
    const leaves = (await store.logLeaves(organizationId, 0, 10_000)).map((l) => l.leaf);
    return { tree: MemoryTree.fromLeaves(leaves.map((l) => Buffer.from(l, 'utf8'))), leaves };
  }

  it('appends each stored record as the next leaf, with every complete subtree and the frontier stored', async () => {
    expect((await begin('b1')).status).to.equal(201);
    await Promise.all(Array.from({ length: 13 }, (_, i) => attest('b1', `a${i}`)));
    expect((await begin('b1', 'globex')).status).to.equal(201);
    const acme = await orgId(server.store, 'acme');
    const { tree, leaves } = await rebuilt(server.store, acme);
    expect(leaves).to.have.length(14);
    expect(JSON.parse(leaves[0]!)).to.include({ seq: 1, org: 'acme', type: 'trail.begin' });
    const stored = await server.store.logTree(acme);
    expect(stored.size).to.equal(14);
    expect(stored.frontier.root().toString('hex')).to.equal(tree.root().toString('hex'));
    for (let size = 1; size <= 14; size++) {
      for (let index = 0; index < size; index++) {
        const proof = await server.store.inclusionProofOf(acme, index, size);
        expect(
          proof.map((h) => h.toString('hex')),
          `${index} of ${size}`,
        ).to.deep.equal(inclusionProof(tree, index, size).map((h) => h.toString('hex')));
        verifyInclusion(index, size, tree.leafHash(index), proof, tree.root(size));
      }
      const proof = await server.store.consistencyProofOf(acme, size, 14);
      expect(proof.map((h) => h.toString('hex'))).to.deep.equal(consistencyProof(tree, size, 14).map((h) => h.toString('hex')));
      verifyConsistency(size, 14, tree.root(size), tree.root(), proof);
    }
    // The other organisation's log is its own.
    expect((await server.store.logTree(await orgId(server.store, 'globex'))).size).to.equal(1);
  });

  it('proves a tree past the levels kept in memory (subtrees of 64 leaves and more) as the stored one does, as it grows, its size current after each write', async () => {
    expect((await begin('b1')).status).to.equal(201);
    const acme = await orgId(server.store, 'acme');
    const grow = async (from: number, to: number) => {
      for (let i = from; i < to; i += 20) {
        const statuses = await Promise.all(Array.from({ length: Math.min(20, to - i) }, (_, j) => attest('b1', `a${i + j}`).then((r) => r.status)));
        expect(statuses.every((s) => s === 201)).to.equal(true);
        // The size proofs are checked against moves with each write (it is remembered until a commit).
        expect(await server.store.logSize(acme)).to.equal(Math.min(to, i + 20) + 1);
      }
    };
    const hex = (hashes: readonly Uint8Array[]) => hashes.map((h) => Buffer.from(h).toString('hex'));
    const check = async (size: number) => {
      const { tree } = await rebuilt(server.store, acme);
      // Twice each: the second from the upper subtrees the first kept.
      for (const round of [1, 2]) {
        for (const index of [0, 5, 255, 256, 300, size - 1].filter((i) => i < size)) {
          const proof = await server.store.inclusionProofOf(acme, index, size);
          expect(hex(proof), `${index} of ${size}, round ${round}`).to.deep.equal(hex(inclusionProof(tree, index, size)));
          const [leaf] = await server.store.logLeaves(acme, index, 1);
          expect(leaf).to.deep.equal({ index, leaf: (await server.store.logLeaves(acme, 0, size))[index]!.leaf });
        }
        for (const from of [1, 255, 256, 257, size - 1]) {
          const proof = await server.store.consistencyProofOf(acme, from, size);
          expect(hex(proof), `${from} to ${size}, round ${round}`).to.deep.equal(hex(consistencyProof(tree, from, size)));
        }
      }
    };
    await grow(0, 299);
    await check(300);
    await grow(299, 559);
    await check(300);
    await check(560);
    expect(await server.store.logLeaves(acme, 560, 1)).to.deep.equal([]);
  });

  it('signs a checkpoint of each grown tree with the published key, and keeps each one', async () => {
    expect((await begin('b1')).status).to.equal(201);
    await server.store.makeCheckpoints!();
    expect((await attest('b1', 'unit')).status).to.equal(201);
    await server.store.makeCheckpoints!();
    await server.store.makeCheckpoints!(); // nothing grew: no new checkpoint
    const acme = await orgId(server.store, 'acme');
    const kept = await server.store.listCheckpoints(acme, 0, 10);
    expect(kept.map((c) => c.treeSize)).to.deep.equal([2, 1]);
    const verifier = parseVerifierKey(server.store.logSigning!.signer.verifierKey);
    const { tree } = await rebuilt(server.store, acme);
    for (const c of kept) {
      const { checkpoint } = openCheckpoint(c.note, verifier, `${server.store.logSigning!.origin}/acme`);
      expect(checkpoint.size).to.equal(c.treeSize);
      expect(Buffer.from(checkpoint.rootHash).toString('hex')).to.equal(tree.root(c.treeSize).toString('hex'));
    }
  });

  it('makes the records kept before migration 0017 the leaves of the tree', async () => {
    expect((await begin('b1')).status).to.equal(201);
    for (let i = 0; i < 6; i++) expect((await attest('b1', `a${i}`)).status).to.equal(201);
    const acme = await orgId(server.store, 'acme');
    const before = await server.store.logTree(acme);
    await server.stop();
    const store = await (await builtTesting()).reopenTestStore(server, migrationsUndone('0017_transparency_log'));
    try {
      const migrated = await store.logTree(acme);
      expect(migrated.size).to.equal(7);
      expect(migrated.frontier.root().toString('hex')).to.equal(before.frontier.root().toString('hex'));
      const { tree } = await rebuilt(store, acme);
      expect(migrated.frontier.root().toString('hex')).to.equal(tree.root().toString('hex'));
      for (let index = 0; index < 7; index++) verifyInclusion(index, 7, tree.leafHash(index), await store.inclusionProofOf(acme, index, 7), tree.root());
      // A checkpoint of the migrated tree is made as the store opens.
      await store.makeCheckpoints!();
      expect((await store.latestCheckpoint(acme))?.treeSize).to.equal(7);
    } finally {
      await store.close();
    }
  });
  it('keys the subtrees stored before migration 0019 by position, with their hashes as they were', async () => {
    expect((await begin('b1')).status).to.equal(201);
    for (let i = 0; i < 40; i++) expect((await attest('b1', `a${i}`)).status).to.equal(201);
    expect((await begin('b1', 'globex')).status).to.equal(201);
    const acme = await orgId(server.store, 'acme');
    const { tree, leaves } = await rebuilt(server.store, acme);
    const globex = await orgId(server.store, 'globex');
    const other = await rebuilt(server.store, globex);
    await server.stop();
    // The table as migration 0017 made it (keyed by level and index), holding each organisation's subtrees.
    const hex = (hash: Uint8Array) =>
      testBackend === 'postgres' ? `'\\x${Buffer.from(hash).toString('hex')}'::bytea` : `x'${Buffer.from(hash).toString('hex')}'`;
    const rows = [
      [acme, leaves],
      [globex, other.leaves],
    ].flatMap(([organizationId, records]) => {
      const range = new CompactRange();
      return (records as string[]).flatMap((record) =>
        range.append(leafHash(Buffer.from(record, 'utf8'))).map((s) => `(${organizationId}, ${s.level}, ${s.index}, ${hex(s.hash)})`),
      );
    });
    const store = await (await builtTesting()).reopenTestStore(server, [
      'drop table log_subtrees',
      `create table log_subtrees (organization_id ${testBackend === 'postgres' ? 'bigint' : 'integer'} not null, level integer not null, idx ${testBackend === 'postgres' ? 'bigint' : 'integer'} not null, hash ${testBackend === 'postgres' ? 'bytea' : 'blob'} not null, primary key (organization_id, level, idx))`,
      `insert into log_subtrees (organization_id, level, idx, hash) values ${rows.join(', ')}`,
      // 0019 and every later migration forgotten (0019 itself has nothing to undo), so that reopening applies them in order.
      ...migrationsUndone('0019_log_subtree_positions'),
    ]);
    try {
      for (let size = 1; size <= 41; size++) {
        for (let index = 0; index < size; index++)
          verifyInclusion(index, size, tree.leafHash(index), await store.inclusionProofOf(acme, index, size), tree.root(size));
        verifyConsistency(size, 41, tree.root(size), tree.root(), await store.consistencyProofOf(acme, size, 41));
      }
      verifyInclusion(0, 1, other.tree.leafHash(0), await store.inclusionProofOf(globex, 0, 1), other.tree.root());
      expect(await store.verifyLog(acme, 'acme')).to.include({ ok: true, leaves: 41 });
      expect(await store.verifyLog(globex, 'globex')).to.include({ ok: true, leaves: 1 });
    } finally {
      await store.close();
    }
  });
});
