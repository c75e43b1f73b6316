// @database
/**
 * Tamper tests of the transparency log (issue 34) on a real database (SQLite file or PostgreSQL):
 * an operator with full database access changes, inserts or deletes evidence, or hides a piece of
 * evidence by rewriting the chain and the tree (and re-signing with a new key). `trailproof verify`
 * finds each, and an auditor who kept an earlier checkpoint finds the rewrite with the proofs the
 * server serves.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { canonicalJson, genesisHash } from '../packages/server/src/store/queries/chain.ts';
import { BetterSqlite3, type TestServer } from '@trailproof/server/testing';
import {
  CompactRange,
  decodeProof,
  generateNoteKey,
  leafHash,
  parseSignerKey,
  signCheckpoint,
  subtreePosition,
  verificationOutcome,
  verifyCheckpointConsistency,
  verifyLeafInclusion,
} from '../packages/server/src/transparency/index.ts';
import { builtTesting } from './support/built-testing.ts';
import { runTrailproof } from './support/processes.ts';
import { rawSql } from './support/raw-sql.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A Kysely connection to the server's database behind its back, as an intruder would open one. */
async function intruder(server: TestServer, work: (db: Kysely<any>) => Promise<void>): Promise<void> {
  const db =
    server.backend === 'sqlite'
      ? new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(server.file) }) })
      : new Kysely<any>({
          dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: server.location, options: `-c search_path=${server.schema}`, max: 1 }) }),
        });
  try {
    await work(db);
  } finally {
    await db.destroy();
  }
}

const unprotect = (server: TestServer, tables: string[]) =>
  rawSql(
    server,
    tables.flatMap((table) =>
      server.backend === 'sqlite'
        ? [`drop trigger if exists ${table}_no_update`, `drop trigger if exists ${table}_no_delete`]
        : [`alter table ${table} disable trigger user`],
    ),
  );

/**
 * Rewrites acme's history without the record at `seq`: the chain renumbered and rehashed, the
 * tree rebuilt from the new records, so that both are whole again. With `resign`, the kept
 * checkpoints are replaced by one of the new tree signed with a new key, stored as the server's.
 */
async function rewriteWithout(server: TestServer, seq: number, resign: boolean): Promise<void> {
  await unprotect(server, ['evidence_log', 'log_subtrees', 'log_checkpoints', 'attestations']);
  await intruder(server, async (db) => {
    const org = Number((await db.selectFrom('organizations').select('id').where('name', '=', 'acme').executeTakeFirstOrThrow()).id);
    const records = await db.selectFrom('evidence_log').selectAll().where('organization_id', '=', org).orderBy('seq').execute();
    const hidden = JSON.parse(records[seq - 1]!.record);
    await db.deleteFrom(hidden.ref.table).where('id', '=', hidden.ref.id).execute();
    await db.deleteFrom('evidence_log').where('organization_id', '=', org).execute();
    await db.deleteFrom('log_subtrees').where('organization_id', '=', org).execute();
    const range = new CompactRange();
    let previous = genesisHash;
    for (const [i, row] of records.filter((r) => Number(r.seq) !== seq).entries()) {
      const record = canonicalJson({ ...JSON.parse(row.record), seq: i + 1 });
      const hash = sha(previous + record);
      await db
        .insertInto('evidence_log')
        .values({ ...row, seq: i + 1, record, prev_hash: previous, hash })
        .execute();
      previous = hash;
      for (const s of range.append(leafHash(Buffer.from(record))))
        await db
          .insertInto('log_subtrees')
          .values({ organization_id: org, position: subtreePosition(s.level, s.index), hash: s.hash })
          .execute();
    }
    await db
      .updateTable('log_trees')
      .set({ size: range.size, frontier: Buffer.concat(range.hashes) })
      .where('organization_id', '=', org)
      .execute();
    if (resign) {
      const origin = (await db.selectFrom('log_signing').select('origin').executeTakeFirstOrThrow()).origin;
      const key = generateNoteKey(origin);
      await db.updateTable('log_signing').set({ signer_key: key.signerKey }).execute();
      await db.deleteFrom('log_checkpoints').where('organization_id', '=', org).execute();
      const note = signCheckpoint({ origin: `${origin}/acme`, size: range.size, rootHash: range.root() }, parseSignerKey(key.signerKey));
      await db
        .insertInto('log_checkpoints')
        .values({ organization_id: org, tree_size: range.size, root_hash: range.root(), note, created_at: Date.now() / 1000 })
        .execute();
    }
  });
}

describe('transparency log tamper evidence: verify, and proofs against an earlier checkpoint', function () {
  this.timeout(120_000);
  let server: TestServer;
  let org: number;
  let verifierKey: string;
  let earlier: string;

  beforeEach(async () => {
    // The built server: on SQLite each verification starts a thread, which under tsx compiles the sources first.
    server = await (await builtTesting()).startTestServer();
    const ok = (status: number) => expect(status).to.be.oneOf([200, 201]);
    ok((await server.request('PUT', '/api/v2/trails/acme/app', { form: { data_json: JSON.stringify({ name: 'b1' }) } })).status);
    for (const [name, compliant] of [
      ['unit', true],
      ['security', false],
      ['lint', true],
    ] as const) {
      ok(
        (
          await server.request('POST', '/api/v2/attestations/acme/app/trail/b1/generic', {
            form: { data_json: JSON.stringify({ attestation_name: name, is_compliant: compliant }) },
          })
        ).status,
      );
    }
    await server.store.makeCheckpoints!();
    // The auditor keeps the checkpoint of these 4 leaves and the key.
    earlier = Buffer.from((await server.request('GET', '/api/v2/log/acme/checkpoint', { token: server.readToken })).bytes).toString();
    verifierKey = (await server.request('GET', '/api/v2/log/acme/key', { token: server.readToken })).body.verifier_key;
    ok(
      (
        await server.request('POST', '/api/v2/attestations/acme/app/trail/b1/generic', {
          form: { data_json: JSON.stringify({ attestation_name: 'e2e', is_compliant: true }) },
        })
      ).status,
    );
    await server.store.makeCheckpoints!();
    org = (await server.store.findOrganization('acme'))!.id;
  });
  afterEach(() => server.close());

  const verifyStore = async (options = {}) => ({ chain: await server.store.verifyChain(org, 'acme'), log: await server.store.verifyLog(org, 'acme', options) });

  /** What the auditor holding `earlier` finds with the server's latest checkpoint and consistency proof. */
  async function auditorOutcome(options: { grow?: boolean } = {}): Promise<string> {
    // Evidence stored after the rewrite grows the tree past its old size, so that a new checkpoint is signed.
    for (const name of options.grow ? ['after-1', 'after-2'] : []) {
      await server.request('POST', '/api/v2/attestations/acme/app/trail/b1/generic', {
        form: { data_json: JSON.stringify({ attestation_name: name, is_compliant: true }) },
      });
    }
    await server.store.makeCheckpoints!();
    const latest = Buffer.from((await server.request('GET', '/api/v2/log/acme/checkpoint', { token: server.readToken })).bytes).toString();
    const size = Number(latest.split('\n')[1]);
    const proof = await server.request('GET', `/api/v2/log/acme/proof/consistency?from=4&to=${size}`, { token: server.readToken });
    return verificationOutcome(() => verifyCheckpointConsistency({ older: earlier, newer: latest, proof: decodeProof(proof.body.proof), verifierKey }));
  }

  it('holds for an untouched database: verify passes, and the later checkpoint extends the earlier one', async () => {
    const { log } = await verifyStore();
    expect(log).to.include({ ok: true, leaves: 5, problem: null });
    expect(log.checkpoints).to.be.at.least(2);
    expect(await auditorOutcome()).to.equal('verified');
  });

  it('finds an evidence row changed, inserted or deleted behind its back (the chain), with the log intact', async () => {
    await unprotect(server, ['attestations']);
    await rawSql(server, [`update attestations set compliant = 1 where name = 'security'`]);
    expect((await verifyStore()).chain.firstBroken?.reason).to.match(/changed after it was stored/);
    await rawSql(server, [`update attestations set compliant = 0 where name = 'security'`, `delete from attestations where name = 'lint'`]);
    expect((await verifyStore()).chain.firstBroken?.reason).to.match(/is missing/);
    await rawSql(server, [
      `insert into attestations (trail_id, name, type, data, compliant, created_at) select trail_id, 'lint', type, data, 1, created_at from attestations where name = 'unit'`,
    ]);
    const { chain, log } = await verifyStore();
    expect(chain.ok).to.equal(false);
    expect(log.ok).to.equal(true);
  });

  it('finds a stored leaf hash or subtree changed, or one added', async () => {
    await unprotect(server, ['log_subtrees']);
    // Subtrees are keyed by their place in the order appends complete them (subtreePosition).
    const at = (level: number, index: number) => `position = ${subtreePosition(level, index)}`;
    await rawSql(server, [`update log_subtrees set hash = (select hash from log_subtrees where ${at(0, 0)}) where ${at(0, 1)}`]);
    expect((await verifyStore()).log.problem).to.match(/^leaf 1 \(record 2\) does not match its stored leaf hash/);
    await rawSql(server, [
      `update log_subtrees set hash = (select hash from log_subtrees where ${at(0, 2)}) where ${at(0, 1)}`,
      `update log_subtrees set hash = (select hash from log_subtrees where ${at(0, 0)}) where ${at(0, 1)}`,
    ]);
    // Level 0 restored from the record, a level-1 subtree changed instead.
    await intruder(server, async (db) => {
      const record = (await db.selectFrom('evidence_log').select('record').where('seq', '=', 2).executeTakeFirstOrThrow()).record;
      await db
        .updateTable('log_subtrees')
        .set({ hash: leafHash(Buffer.from(record)) })
        .where('position', '=', subtreePosition(0, 1))
        .execute();
      await db
        .updateTable('log_subtrees')
        .set({ hash: leafHash(Buffer.from('forged')) })
        .where('position', '=', subtreePosition(1, 1))
        .execute();
    });
    expect((await verifyStore()).log.problem).to.match(/^stored subtree 1\/1 \(leaves 2 to 3\) does not match its leaves/);
    await intruder(server, async (db) => {
      // Subtree 1/1 made right again from its leaves, then a row of no leaf added.
      const leaves = await db
        .selectFrom('log_subtrees')
        .select('hash')
        .where('position', 'in', [subtreePosition(0, 2), subtreePosition(0, 3)])
        .orderBy('position')
        .execute();
      await db
        .updateTable('log_subtrees')
        .set({
          hash: createHash('sha256')
            .update(Buffer.from([1]))
            .update(leaves[0]!.hash)
            .update(leaves[1]!.hash)
            .digest(),
        })
        .where('position', '=', subtreePosition(1, 1))
        .execute();
      await db
        .insertInto('log_subtrees')
        .values({ organization_id: org, position: subtreePosition(0, 99), hash: leafHash(Buffer.from('extra')) })
        .execute();
    });
    expect((await verifyStore()).log.problem).to.match(/stores 9 subtrees where 5 leaves make 8: rows were added/);
  });

  it("finds a piece of evidence hidden by rewriting the chain and the tree: verify, and the auditor's earlier checkpoint", async () => {
    // The server's own timer may have signed a checkpoint of 3 leaves beside the test's of 4: verify names the first that covers the hidden record.
    let signedSizes: number[] = [];
    await intruder(server, async (db) => {
      const rows = await db.selectFrom('log_checkpoints').select('tree_size').where('organization_id', '=', org).execute();
      signedSizes = rows.map((row) => Number(row.tree_size));
    });
    const firstCovering = Math.min(...signedSizes.filter((size) => size >= 3));
    expect(firstCovering).to.be.oneOf([3, 4]);
    await rewriteWithout(server, 3, false); // the failing 'security' attestation
    const { chain, log } = await verifyStore();
    expect(chain.ok).to.equal(true); // the chain was recomputed: alone it cannot tell
    expect(log.ok).to.equal(false);
    expect(log.problem).to.match(
      new RegExp(`checkpoint ${firstCovering} does not match the tree of the chain's first ${firstCovering} records: the history it signed was rewritten`),
    );
    // From 4 leaves (a power of two) the proof starts at the old root itself: the new root then differs.
    expect(await auditorOutcome({ grow: true })).to.be.oneOf(['consistency-old-root-mismatch', 'consistency-new-root-mismatch']);
    // The inclusion proof of leaf 3 (once 'lint') against the earlier checkpoint no longer verifies either.
    const proof = await server.request('GET', '/api/v2/log/acme/proof/inclusion?index=2&tree_size=4', { token: server.readToken });
    expect(
      verificationOutcome(() =>
        verifyLeafInclusion({ leaf: Buffer.from(proof.body.leaf), index: 2, proof: decodeProof(proof.body.proof), checkpoint: earlier, verifierKey }),
      ),
    ).to.equal('inclusion-root-mismatch');
  });

  it("finds it re-signed with a new key: verify against the pinned key, the command exits 1, the auditor's checks fail", async () => {
    await rewriteWithout(server, 3, true);
    // With the database's own (replaced) key, everything in it agrees: the pinned key tells.
    expect((await verifyStore()).log.ok).to.equal(true);
    const pinned = await verifyStore({ verifierKey });
    expect(pinned.log.ok).to.equal(false);
    expect(pinned.log.problem).to.match(/^checkpoint 4: the note has no signature by the key/);
    expect(await auditorOutcome()).to.equal('no-signature-by-key');
    if (server.backend === 'sqlite') {
      const run = await runTrailproof(['verify', '--org', 'acme', '--db', server.file, '--key', verifierKey]);
      expect(run.status, run.stderr).to.equal(1);
      expect(run.stdout).to.contain('acme: ok, 4 records');
      expect(run.stdout).to.contain('acme: log BROKEN: checkpoint 4: the note has no signature by the key');
    }
  });
});
