/**
 * Seeds the asserts benchmark's evidence straight into a SQLite database the server has migrated
 * (big transactions: reporting a million artifacts through the API takes hours on the shared
 * machine): in the organisation `bench`, 100 flows tagged `tier`, `trails` trails spread over
 * them, `perTrail` artifacts each (filenames `app-N`, template names `app-0`...), and four generic
 * attestations a trail (`check-0` to `check-3`, each naming one artifact, `check-3` failing).
 * Every row has its record in the organisation's hash chain and its leaf in the log, as the
 * store writes them (chain.ts), so that verdicts name real log indexes. Deterministic.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, digestOf, genesisHash, sha256 } from '../../packages/server/src/store/queries/chain.ts';
import { CompactRange, leafHash } from '../../packages/server/src/transparency/index.ts';
import { seedDatabase } from './bench-db.ts';

export const assertSeed = { flows: 100, attestations: 4 } as const;

export const fingerprintOf = (i: number) => createHash('sha256').update(`assert-${i}`).digest('hex');
const commitOf = (trail: number) => createHash('sha1').update(`commit-${trail}`).digest('hex');

/** The flows' `tier` tag, which the policies' `if`s read. */
export const tierOf = (flow: number) => `t${flow % 3}`;

export function seedAssertEvidence(file: string, trails: number, perTrail: number): void {
  seedDatabase(file, (db, org) => {
    const insertFlow = db.prepare(
      `insert into flows (organization_id, name, description, visibility, created_at, last_modified_at, tags) values (?, ?, '', 'private', 1, 1, ?)`,
    );
    const insertTrail = db.prepare(
      `insert into trails (flow_id, organization_id, name, description, commit_sha, created_at, last_modified_at) values (?, ?, ?, '', ?, ?, ?)`,
    );
    const insertArtifact = db.prepare(
      `insert into artifacts (organization_id, flow_id, trail_id, fingerprint, filename, template_reference_name, git_commit, repo_name, build_url, commit_url, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, 'https://ci.example/build', 'https://git.example/commit', ?)`,
    );
    const insertAttestation = db.prepare(`insert into attestations (trail_id, name, type, data, compliant, created_at) values (?, ?, 'generic', ?, ?, ?)`);
    const insertRecord = db.prepare(`insert into evidence_log (organization_id, seq, type, record, prev_hash, hash, created_at) values (?, ?, ?, ?, ?, ?, ?)`);
    const insertSubtree = db.prepare('insert into log_subtrees (organization_id, position, hash) values (?, ?, ?)');
    let seq = 0;
    let previous = genesisHash;
    // Subtrees are numbered in the order they complete (subtreePosition): as they come here.
    let position = 0;
    const range = new CompactRange();
    /** The row's chain record and log leaf, as appendEvidenceBatch writes them. */
    const chain = (type: string, table: string, row: Record<string, unknown>, data: Record<string, unknown>, at: number) => {
      seq++;
      const record = canonicalJson({ seq, org: 'bench', type, at, ref: { table, id: row.id }, digest: digestOf(row), data });
      const hash = sha256(previous + record);
      insertRecord.run(org, seq, type, record, previous, hash, at);
      previous = hash;
      for (const s of range.append(leafHash(Buffer.from(record)))) insertSubtree.run(org, position++, s.hash);
    };
    const flowIds = db.transaction(() =>
      Array.from({ length: assertSeed.flows }, (_, i) => Number(insertFlow.run(org, `flow-${i}`, JSON.stringify({ tier: tierOf(i) })).lastInsertRowid)),
    )();
    const nulls = { repo_name: null, git_commit_info: null, repo_info: null, origin_url: null, external_urls: null, user_data: null, template_sha256: null };
    for (let from = 0; from < trails; from += 5_000) {
      db.transaction(() => {
        for (let t = from; t < Math.min(trails, from + 5_000); t++) {
          const flowId = flowIds[t % assertSeed.flows]!;
          const flow = `flow-${t % assertSeed.flows}`;
          const trail = `trail-${t}`;
          const commit = commitOf(t);
          const trailId = Number(insertTrail.run(flowId, org, trail, commit, t, t).lastInsertRowid);
          chain(
            'trail.begin',
            'trails',
            { id: trailId, flow_id: flowId, name: trail, description: '', commit_sha: commit, ...nulls, created_at: t },
            { flow, trail, created: true, input: { name: trail }, template_sha256: null },
            t,
          );
          for (let a = 0; a < perTrail; a++) {
            const i = t * perTrail + a;
            const row = {
              organization_id: org,
              flow_id: flowId,
              trail_id: trailId,
              fingerprint: fingerprintOf(i),
              filename: `app-${i}`,
              template_reference_name: `app-${a}`,
              git_commit: commit,
              git_commit_info: null,
              repo_info: null,
              repo_name: `acme/repo-${t % 20}`,
              build_url: 'https://ci.example/build',
              commit_url: 'https://git.example/commit',
              repo_url: null,
              external_urls: null,
              annotations: null,
              created_at: t,
            };
            const id = Number(
              insertArtifact.run(org, flowId, trailId, row.fingerprint, row.filename, row.template_reference_name, commit, row.repo_name, t).lastInsertRowid,
            );
            const { fingerprint, filename, template_reference_name, git_commit } = row;
            chain('artifact', 'artifacts', { id, ...row }, { flow, trail, fingerprint, filename, template_reference_name, git_commit }, t);
          }
          for (let k = 0; k < assertSeed.attestations; k++) {
            const data = JSON.stringify({ target_artifacts: [`app-${k % perTrail}`] });
            const compliant = k === 3 ? 0 : 1;
            const name = `check-${k}`;
            const id = Number(insertAttestation.run(trailId, name, data, compliant, t).lastInsertRowid);
            const row = {
              id,
              trail_id: trailId,
              name,
              type: 'generic',
              data,
              artifact_fingerprint: null,
              attachment_sha256: null,
              attachment_name: null,
              compliant,
              created_at: t,
            };
            chain('attestation', 'attestations', row, { flow, trail, name, type: 'generic', artifact_fingerprint: null, attachment_sha256: null }, t);
          }
        }
      })();
    }
    db.prepare('insert into log_trees (organization_id, size, frontier) values (?, ?, ?)').run(org, range.size, Buffer.concat(range.hashes));
    db.exec('analyze');
  });
}
