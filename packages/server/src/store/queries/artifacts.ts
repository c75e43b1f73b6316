/**
 * Artifacts (`kosli attest artifact`, migration 0022): appended to trails with their chain
 * records, once per fingerprint and trail, and found by fingerprint or by trail. Which
 * attestations an artifact has is not stored but follows from both rows (domain/artifact-binding.ts).
 */
import { compiledOnce } from '../compiled-once.ts';
import { inListChunks, isSqlite, type Db } from '../database.ts';
import { fromJson, toJson } from '../json.ts';
import { inTransaction } from '../transactions.ts';
import { appendEvidenceBatch, byToken, digestColumnsOf } from './chain.ts';
import { trailForEvidence } from './evidence-trails.ts';
import { tokenRef, type TokenRef } from './provenance.ts';

/** An artifact to store on a trail named by its organisation, flow and trail names; the body fields as `attestArtifact.go` sends them. */
export interface ArtifactAppend {
  organizationId: number;
  flow: string;
  trail: string;
  /** SHA-256, lowercase hex. */
  fingerprint: string;
  filename: string;
  templateReferenceName: string;
  gitCommit: string | null;
  gitCommitInfo: Record<string, unknown> | null;
  repoInfo: { name?: string; [key: string]: unknown } | null;
  buildUrl: string;
  commitUrl: string;
  repoUrl: string | null;
  externalUrls: Record<string, unknown> | null;
  annotations: Record<string, string> | null;
  /** The id of the token that stores it (null: stored without a caller). */
  createdBy: string | null;
  at: number;
}

/** The stored artifact (`created` false: this trail had the fingerprint already, nothing stored), or which of flow and trail does not exist. */
export type ArtifactAppendResult = { id: number; trailId: number; created: boolean } | { missing: 'flow' | 'trail' };

export interface ArtifactRow {
  id: number;
  organizationId: number;
  flowId: number;
  flowName: string;
  trailId: number;
  trailName: string;
  fingerprint: string;
  filename: string;
  templateReferenceName: string;
  gitCommit: string | null;
  gitCommitInfo: Record<string, unknown> | null;
  repoInfo: Record<string, unknown> | null;
  repoName: string | null;
  buildUrl: string;
  commitUrl: string;
  repoUrl: string | null;
  externalUrls: Record<string, unknown> | null;
  annotations: Record<string, string> | null;
  createdBy: TokenRef | null;
  createdAt: number;
}

/** On PostgreSQL the trail's row locked until COMMIT, as attestations lock it: artifacts and attestations of a trail take turns. */
const lockTrail = compiledOnce((db, v: { id: number }) => db.selectFrom('trails').select('id').where('id', '=', v.id).forNoKeyUpdate());
const touchTrail = compiledOnce((db, v: { id: number; at: number }) => db.updateTable('trails').set({ last_modified_at: v.at }).where('id', '=', v.id));
const existingOf = compiledOnce((db, v: { trailId: number; fingerprint: string }) =>
  db.selectFrom('artifacts').select('id').where('trail_id', '=', v.trailId).where('fingerprint', '=', v.fingerprint),
);

/**
 * Finds the trail and stores the artifact and its chain record in one transaction; a fingerprint
 * the trail has already is not stored again. Plain values in and out (SQLite's writer thread).
 */
export async function appendArtifact(db: Db, a: ArtifactAppend): Promise<ArtifactAppendResult> {
  return (await appendArtifacts(db, [a]))[0]!;
}

/**
 * `appendArtifact` for several, in one transaction with one chain append (the batches of
 * `batchedWrites`, as attestations are stored): trails found once each and locked in id order
 * (before the organisation, as attestations take them), each artifact's time at least its
 * trail's latest, and a fingerprint given twice for one trail stored once. A missing trail fails
 * only its own artifact.
 */
export function appendArtifacts(db: Db, list: ArtifactAppend[]): Promise<ArtifactAppendResult[]> {
  return inTransaction(db, async (trx) => {
    const trails = new Map<string, Awaited<ReturnType<typeof trailForEvidence>>>();
    const keyOf = (a: ArtifactAppend) => JSON.stringify([a.organizationId, a.flow, a.trail]);
    for (const a of list)
      if (!trails.has(keyOf(a))) trails.set(keyOf(a), await trailForEvidence(trx, { organizationId: a.organizationId, flow: a.flow, trail: a.trail }));
    const since = new Map<number, number>();
    for (const trail of [...trails.values()].sort((x, y) => ('id' in x ? x.id : 0) - ('id' in y ? y.id : 0))) {
      if ('missing' in trail) continue;
      if (!isSqlite(trx)) await lockTrail(trx, { id: trail.id });
      since.set(trail.id, trail.lastModifiedAt);
    }
    const stored = new Map<string, number>();
    const touched = new Set<number>();
    const results: ArtifactAppendResult[] = [];
    const evidence: Parameters<typeof appendEvidenceBatch>[1] = [];
    for (const a of list) {
      const trail = trails.get(keyOf(a))!;
      if ('missing' in trail) {
        results.push(trail);
        continue;
      }
      const trailId = trail.id;
      const sameKey = JSON.stringify([trailId, a.fingerprint]);
      const existing = stored.get(sameKey) ?? Number((await existingOf(trx, { trailId, fingerprint: a.fingerprint }))[0]?.id ?? 0);
      if (existing) {
        results.push({ id: existing, trailId, created: false });
        continue;
      }
      const at = Math.max(a.at, since.get(trailId)!);
      since.set(trailId, at);
      touched.add(trailId);
      const row = await insertArtifact(trx, a, trail.flowId, trailId, at);
      stored.set(sameKey, Number(row.id));
      results.push({ id: Number(row.id), trailId, created: true });
      evidence.push({
        organizationId: a.organizationId,
        type: 'artifact',
        at,
        ref: { table: 'artifacts', id: Number(row.id) },
        row,
        data: {
          flow: a.flow,
          trail: a.trail,
          fingerprint: a.fingerprint,
          filename: a.filename,
          template_reference_name: a.templateReferenceName,
          git_commit: a.gitCommit,
          ...byToken(a.createdBy),
        },
      });
    }
    // Only the trails that gained an artifact: one reported again changes nothing.
    for (const id of [...touched].sort((x, y) => x - y)) await touchTrail(trx, { id, at: since.get(id)! });
    if (evidence.length) await appendEvidenceBatch(trx, evidence);
    return results;
  });
}

/** Stores one artifact's row, returning its digest columns for its chain record. */
function insertArtifact(trx: Db, a: ArtifactAppend, flowId: number, trailId: number, at: number) {
  return trx
    .insertInto('artifacts')
    .values({
      organization_id: a.organizationId,
      flow_id: flowId,
      trail_id: trailId,
      fingerprint: a.fingerprint,
      filename: a.filename,
      template_reference_name: a.templateReferenceName,
      git_commit: a.gitCommit,
      git_commit_info: toJson(a.gitCommitInfo),
      repo_info: toJson(a.repoInfo),
      repo_name: typeof a.repoInfo?.name === 'string' ? a.repoInfo.name : null,
      build_url: a.buildUrl,
      commit_url: a.commitUrl,
      repo_url: a.repoUrl,
      external_urls: toJson(a.externalUrls),
      annotations: toJson(a.annotations),
      created_by_token: a.createdBy,
      created_at: at,
    })
    .returning(digestColumnsOf('artifacts'))
    .executeTakeFirstOrThrow();
}

/** The artifacts' columns an `ArtifactRow` is made of, with flow, trail and token joined. */
const artifactRowsQuery = (db: Db) =>
  db
    .selectFrom('artifacts as r')
    .innerJoin('flows as f', 'f.id', 'r.flow_id')
    .innerJoin('trails as t', 't.id', 'r.trail_id')
    .leftJoin('tokens as k', 'k.id', 'r.created_by_token')
    .select([
      'r.id',
      'r.organization_id',
      'r.flow_id',
      'f.name as flow_name',
      'r.trail_id',
      't.name as trail_name',
      'r.fingerprint',
      'r.filename',
      'r.template_reference_name',
      'r.git_commit',
      'r.git_commit_info',
      'r.repo_info',
      'r.repo_name',
      'r.build_url',
      'r.commit_url',
      'r.repo_url',
      'r.external_urls',
      'r.annotations',
      'r.created_by_token',
      'k.description as token_description',
      'r.created_at',
    ]);

type ArtifactSelect = Awaited<ReturnType<ReturnType<typeof artifactRowsQuery>['execute']>>[number];

/** An `ArtifactRow` from a row of `artifactRowsQuery` (exported for the reads that page or filter it otherwise). */
export const artifactRowOf = (r: ArtifactSelect): ArtifactRow => ({
  id: Number(r.id),
  organizationId: Number(r.organization_id),
  flowId: Number(r.flow_id),
  flowName: r.flow_name,
  trailId: Number(r.trail_id),
  trailName: r.trail_name,
  fingerprint: r.fingerprint,
  filename: r.filename,
  templateReferenceName: r.template_reference_name,
  gitCommit: r.git_commit,
  gitCommitInfo: fromJson(r.git_commit_info, null),
  repoInfo: fromJson(r.repo_info, null),
  repoName: r.repo_name,
  buildUrl: r.build_url,
  commitUrl: r.commit_url,
  repoUrl: r.repo_url,
  externalUrls: fromJson(r.external_urls, null),
  annotations: fromJson(r.annotations, null),
  createdBy: tokenRef(r.created_by_token, r.token_description),
  createdAt: Number(r.created_at),
});

export { artifactRowsQuery };

/** The organisation's artifacts with any of `fingerprints` (in any flow and trail), newest first; one query per 500. */
export async function artifactsByFingerprints(db: Db, organizationId: number, fingerprints: readonly string[]): Promise<ArtifactRow[]> {
  const out: ArtifactRow[] = [];
  for (const chunk of inListChunks([...new Set(fingerprints)])) {
    const rows = await artifactRowsQuery(db).where('r.organization_id', '=', organizationId).where('r.fingerprint', 'in', chunk).execute();
    out.push(...rows.map(artifactRowOf));
  }
  return out.sort((x, y) => y.id - x.id);
}

/** The artifacts of these trails, oldest first (in report order within a trail). */
export async function artifactsOfTrails(db: Db, trailIds: readonly number[]): Promise<ArtifactRow[]> {
  const out: ArtifactRow[] = [];
  for (const chunk of inListChunks([...new Set(trailIds)])) {
    const rows = await artifactRowsQuery(db).where('r.trail_id', 'in', chunk).execute();
    out.push(...rows.map(artifactRowOf));
  }
  return out.sort((x, y) => x.id - y.id);
}

/** These artifacts, by id (the audit package's views). */
export async function artifactsByIds(db: Db, ids: readonly number[]): Promise<Map<number, ArtifactRow>> {
  const out = new Map<number, ArtifactRow>();
  for (const chunk of inListChunks([...new Set(ids)]))
    for (const r of await artifactRowsQuery(db).where('r.id', 'in', chunk).execute()) out.set(Number(r.id), artifactRowOf(r));
  return out;
}

export const reads = { artifactsByFingerprints, artifactsOfTrails, artifactsByIds };
export const writes = { appendArtifact };
