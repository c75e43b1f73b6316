/** Reading evidence back: trails (one by name or id, or a flow's page), and which trails attested an artifact fingerprint. */
import { PostgresAdapter, sql } from 'kysely';
import { inListChunks, type Db } from '../database.ts';
import { fromJson } from '../json.ts';
import { tokenRef } from './provenance.ts';
import type { TrailRow } from './attestations.ts';

/** A trail with the template it is evaluated against: its own, else its flow's. */
export interface TrailWithTemplate extends TrailRow {
  /** The trail's own template, else the flow's; null without either. */
  effectiveTemplateSha256: string | null;
}

const trailColumns = [
  'trails.id', 'trails.flow_id', 'flows.name as flow_name', 'trails.name', 'trails.description', 'trails.git_commit_info', 'trails.repo_info',
  'trails.origin_url', 'trails.external_urls', 'trails.user_data', 'trails.template_sha256', 'flows.template_sha256 as flow_template_sha256',
  'trails.created_by_token', 'tokens.description as token_description', 'trails.created_at', 'trails.last_modified_at',
] as const;

type TrailSelect = {
  id: number; flow_id: number; flow_name: string; name: string; description: string; git_commit_info: string | null; repo_info: string | null;
  origin_url: string | null; external_urls: string | null; user_data: string | null; template_sha256: string | null;
  flow_template_sha256: string | null; created_by_token: string | null; token_description: string | null; created_at: number; last_modified_at: number;
};

/** Trails with their flow and the token that created them, for `trailColumns`. */
const trailsWithFlow = (db: Db) =>
  db.selectFrom('trails').innerJoin('flows', 'flows.id', 'trails.flow_id').leftJoin('tokens', 'tokens.id', 'trails.created_by_token');

const toTrail = (r: TrailSelect): TrailWithTemplate => ({
  id: Number(r.id), flowId: Number(r.flow_id), flowName: r.flow_name, name: r.name, description: r.description,
  gitCommitInfo: fromJson(r.git_commit_info, null), repoInfo: fromJson(r.repo_info, null), originUrl: r.origin_url,
  externalUrls: fromJson(r.external_urls, null), userData: fromJson(r.user_data, null), templateSha256: r.template_sha256,
  effectiveTemplateSha256: r.template_sha256 ?? r.flow_template_sha256, createdBy: tokenRef(r.created_by_token, r.token_description),
  createdAt: Number(r.created_at), lastModifiedAt: Number(r.last_modified_at),
});

/** A page of a flow's trails, newest first. */
export async function listTrailPage(db: Db, flowId: number, offset: number, limit: number): Promise<{ items: TrailWithTemplate[]; total: number }> {
  const { total } = await db.selectFrom('trails').select((eb) => eb.fn.countAll<number>().as('total')).where('flow_id', '=', flowId).executeTakeFirstOrThrow();
  const rows = await trailsWithFlow(db).select(trailColumns)
    .where('trails.flow_id', '=', flowId).orderBy('trails.created_at', 'desc').orderBy('trails.id', 'desc').limit(limit).offset(offset).execute();
  return { total: Number(total), items: rows.map(toTrail) };
}

/** A trail by organisation, flow and trail name, with its effective template. */
export async function findTrail(db: Db, organizationId: number, flowName: string, trailName: string): Promise<TrailWithTemplate | undefined> {
  const row = await trailsWithFlow(db).select(trailColumns)
    .where('flows.organization_id', '=', organizationId).where('flows.name', '=', flowName).where('trails.name', '=', trailName)
    .executeTakeFirst();
  return row ? toTrail(row) : undefined;
}

/** One trail by id, with its effective template. */
export async function getTrailById(db: Db, trailId: number): Promise<TrailWithTemplate | undefined> {
  const row = await trailsWithFlow(db).select(trailColumns)
    .where('trails.id', '=', trailId).executeTakeFirst();
  return row ? toTrail(row) : undefined;
}

/** One attestation that carries a fingerprint, and where it was made. */
export interface FingerprintAttestation {
  fingerprint: string;
  attestationId: number;
  trailId: number;
  trailName: string;
  flowName: string;
  repoName: string | null;
}

/** Every attestation in the organisation carrying one of `fingerprints`, latest first. */
export async function attestationsOfFingerprints(db: Db, organizationId: number, fingerprints: readonly string[]): Promise<FingerprintAttestation[]> {
  if (!fingerprints.length) return [];
  const out: FingerprintAttestation[] = [];
  for (const chunk of inListChunks(fingerprints)) {
    const rows = await db.selectFrom('attestations as a').innerJoin('trails as t', 't.id', 'a.trail_id').innerJoin('flows as f', 'f.id', 't.flow_id')
      .select(['a.id', 'a.artifact_fingerprint', 't.id as trail_id', 't.name as trail_name', 'f.name as flow_name', 't.repo_name'])
      .where('f.organization_id', '=', organizationId).where('a.artifact_fingerprint', 'in', chunk)
      .execute();
    for (const r of rows) {
      out.push({
        fingerprint: r.artifact_fingerprint!, attestationId: Number(r.id), trailId: Number(r.trail_id), trailName: r.trail_name,
        flowName: r.flow_name, repoName: r.repo_name,
      });
    }
  }
  return out.sort((a, b) => b.attestationId - a.attestationId);
}

/**
 * The name an artifact goes by, from the latest attestation in the organisation that carries its
 * fingerprint and names a target artifact (the template artifact it was attested as).
 */
export async function artifactNameOf(db: Db, organizationId: number, fingerprint: string): Promise<string | undefined> {
  const rows = await db.selectFrom('attestations as a').innerJoin('trails as t', 't.id', 'a.trail_id').innerJoin('flows as f', 'f.id', 't.flow_id')
    .select(['a.data']).where('f.organization_id', '=', organizationId).where('a.artifact_fingerprint', '=', fingerprint)
    .orderBy('a.id', 'desc').limit(20).execute();
  for (const r of rows) {
    const name = targetArtifactsOf(fromJson(r.data, {}))[0];
    if (name) return name;
  }
  return undefined;
}

/** The name an artifact last ran under in an environment of the organisation. */
export async function deployedNameOf(db: Db, organizationId: number, fingerprint: string): Promise<string | undefined> {
  const row = await db.selectFrom('deployments').select('artifact_name').where('organization_id', '=', organizationId)
    .where('fingerprint', '=', fingerprint).orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row?.artifact_name;
}

/** The template artifact names an attestation's data attests for (`target_artifacts`, its strings); empty when it has none. */
export function targetArtifactsOf(data: unknown): string[] {
  const targets = (data as { target_artifacts?: unknown } | null)?.target_artifacts;
  return Array.isArray(targets) ? targets.filter((t): t is string => typeof t === 'string') : [];
}

/** What compliance needs to know of one stored attestation, and its trail. */
export interface AttestationFactsRow {
  trailId: number;
  id: number;
  name: string;
  type: string;
  compliant: boolean;
  targets: string[];
}

/**
 * The compliance facts of every attestation on these trails, oldest first: their data is read
 * only for `target_artifacts` (only where its text may name it), and nothing else of it leaves
 * the query. For lists, whose answers show each trail's compliance but not its attestations: on
 * SQLite this runs on a reader thread, so a trail of thousands of JUnit attestations costs the
 * event loop small rows, not every report's suites.
 */
export async function attestationFactsOfTrails(db: Db, trailIds: readonly number[]): Promise<AttestationFactsRow[]> {
  if (!trailIds.length) return [];
  const out: AttestationFactsRow[] = [];
  for (const chunk of inListChunks(trailIds)) {
    // The data is looked into only where its text names the key or has an escape (which could
    // spell it), and only `target_artifacts` leaves the database: other data (a JUnit report's
    // suites, a megabyte of user_data) is neither copied out nor parsed on the event loop.
    const named = sql`data like ${'%"target!_artifacts"%'} escape '!' or data like ${'%\\u%'} escape '!'`;
    const targets = db.getExecutor().adapter instanceof PostgresAdapter
      ? sql<string | null>`case when ${named} then (data::json -> 'target_artifacts')::text end`
      : sql<string | null>`case when ${named} then data -> '$.target_artifacts' end`;
    const rows = await db.selectFrom('attestations')
      .select(['id', 'trail_id', 'name', 'type', 'compliant']).select(targets.as('targets'))
      .where('trail_id', 'in', chunk).orderBy('id').execute();
    for (const r of rows) {
      out.push({
        trailId: Number(r.trail_id), id: Number(r.id), name: r.name, type: r.type, compliant: Number(r.compliant) === 1,
        targets: r.targets === null ? [] : targetArtifactsOf({ target_artifacts: JSON.parse(r.targets) }),
      });
    }
  }
  return out.sort((a, b) => a.id - b.id);
}

/** The attachment of one attestation of a trail (none when the id is another trail's, or unknown). */
export async function attachmentOf(db: Db, trailId: number, attestationId: number): Promise<{ sha256: string | null; name: string | null } | undefined> {
  const row = await db.selectFrom('attestations').select(['attachment_sha256', 'attachment_name'])
    .where('id', '=', attestationId).where('trail_id', '=', trailId).executeTakeFirst();
  return row && { sha256: row.attachment_sha256, name: row.attachment_name };
}
