/**
 * What is read of attestations besides their whole rows (attestations.ts): those carrying an
 * artifact's fingerprint, the name an artifact goes by, the compliance facts of a page of trails,
 * one attestation's attachment, and the totals of JUnit reports. Each reads only the columns (or
 * the part of the data) it answers with.
 */
import { sql } from 'kysely';
import { compiledOnce } from '../compiled-once.ts';
import { inListChunks, jsonOf, type Db } from '../database.ts';
import { eachChunkInTurn } from '../../support/turns.ts';
import { fromJson } from '../json.ts';

/** One attestation that carries a fingerprint, and where it was made. */
export interface FingerprintAttestation {
  fingerprint: string;
  attestationId: number;
  trailId: number;
  trailName: string;
  flowName: string;
  repoName: string | null;
  /** The trail's git commit, when it was begun with one. */
  commitSha: string | null;
}

// CROSS JOIN keeps SQLite's order (attestations first, by the fingerprint index): with a list of
// 20 fingerprints and no statistics its planner walked every trail of the organisation instead,
// a cost that grew with the trails (PostgreSQL plans it as any join).
const fingerprintAttestations = compiledOnce((db, v: { organizationId: number; fingerprints: string[] }) =>
  db
    .selectFrom('attestations as a')
    .crossJoin('trails as t')
    .crossJoin('flows as f')
    .select(['a.id', 'a.artifact_fingerprint', 't.id as trail_id', 't.name as trail_name', 'f.name as flow_name', 't.repo_name', 't.commit_sha'])
    .whereRef('t.id', '=', 'a.trail_id')
    .whereRef('f.id', '=', 't.flow_id')
    .where('f.organization_id', '=', v.organizationId)
    .where('a.artifact_fingerprint', 'in', v.fingerprints),
);

/** Every attestation in the organisation carrying one of `fingerprints`, latest first. */
export async function attestationsOfFingerprints(db: Db, organizationId: number, fingerprints: readonly string[]): Promise<FingerprintAttestation[]> {
  if (!fingerprints.length) return [];
  const out: FingerprintAttestation[] = [];
  // A turn of the event loop between statements (see artifactMatchesOf).
  await eachChunkInTurn(inListChunks(fingerprints), async (chunk) => {
    const rows = await fingerprintAttestations(db, { organizationId, fingerprints: chunk });
    for (const r of rows) {
      out.push({
        fingerprint: r.artifact_fingerprint!,
        attestationId: Number(r.id),
        trailId: Number(r.trail_id),
        trailName: r.trail_name,
        flowName: r.flow_name,
        repoName: r.repo_name,
        commitSha: r.commit_sha,
      });
    }
  });
  return out.sort((a, b) => b.attestationId - a.attestationId);
}

/**
 * The name an artifact goes by, from the latest attestation in the organisation that carries its
 * fingerprint and names a target artifact (the template artifact it was attested as).
 */
export async function artifactNameOf(db: Db, organizationId: number, fingerprint: string): Promise<string | undefined> {
  const rows = await db
    .selectFrom('attestations as a')
    .innerJoin('trails as t', 't.id', 'a.trail_id')
    .innerJoin('flows as f', 'f.id', 't.flow_id')
    .select(['a.data'])
    .where('f.organization_id', '=', organizationId)
    .where('a.artifact_fingerprint', '=', fingerprint)
    .orderBy('a.id', 'desc')
    .limit(20)
    .execute();
  for (const r of rows) {
    const name = targetArtifactsOf(fromJson(r.data, {}))[0];
    if (name) return name;
  }
  return undefined;
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
  fingerprint: string | null;
  /** When it was made (epoch seconds): a trail's events are told in time. */
  createdAt: number;
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
    const rows = await factsOfTrails(db, { trailIds: chunk });
    out.push(...rows.map(factsOf));
  }
  return out.sort((a, b) => a.id - b.id);
}

// Compiled once per number of trails: every artifact read and trail list asks it.
const factsOfTrails = compiledOnce((db, v: { trailIds: readonly number[] }) => factsQuery(db).where('trail_id', 'in', v.trailIds).orderBy('id'));

/** What a trail's compliance needs of one artifact reported to it. */
export interface ReportedArtifactFacts {
  trailId: number;
  id: number;
  fingerprint: string;
  /** Its template name (`template_reference_name`). */
  name: string;
}

/**
 * What these trails' compliance is judged from, in one statement per 500 trails: their
 * attestations' facts (as `attestationFactsOfTrails`) and their reported artifacts (id,
 * fingerprint, template name), each oldest first. Every artifact read and trail list asks it; on
 * SQLite it runs on a reader thread, so the event loop runs neither statement.
 */
export async function complianceFactsOfTrails(
  db: Db,
  trailIds: readonly number[],
): Promise<{ facts: AttestationFactsRow[]; artifacts: ReportedArtifactFacts[] }> {
  const facts: AttestationFactsRow[] = [];
  const artifacts: ReportedArtifactFacts[] = [];
  for (const chunk of inListChunks([...new Set(trailIds)])) {
    for (const r of await factsAndArtifacts(db, { trailIds: chunk })) {
      if (r.kind === 'attestation') facts.push(factsOf(r));
      else artifacts.push({ trailId: Number(r.trail_id), id: Number(r.id), fingerprint: r.artifact_fingerprint!, name: r.name });
    }
  }
  return { facts: facts.sort((a, b) => a.id - b.id), artifacts: artifacts.sort((a, b) => a.id - b.id) };
}

// Both kinds of rows in the columns of the facts, told apart by `kind`: compiled once per number of trails.
const factsAndArtifacts = compiledOnce((db, v: { trailIds: readonly number[] }) =>
  factsQuery(db)
    .select(sql<string>`'attestation'`.as('kind'))
    .where('trail_id', 'in', v.trailIds)
    .unionAll(
      db
        .selectFrom('artifacts')
        .select([
          'id',
          'trail_id',
          'template_reference_name as name',
          sql<string>`null`.as('type'),
          sql<number>`null`.as('compliant'),
          sql<string | null>`${sql.ref('fingerprint')}`.as('artifact_fingerprint'),
          sql<number>`null`.as('created_at'),
          sql<string | null>`null`.as('targets'),
          sql<string>`'artifact'`.as('kind'),
        ])
        .where('trail_id', 'in', v.trailIds),
    ),
);

/**
 * The compliance facts of the trail's attestations named `name` with an id from `fromId` on, oldest
 * first, `limit` at most: whether one attestation still counts is decided by the later ones of its
 * name alone, found by the index on (trail_id, name, id) however many the trail holds.
 */
export async function attestationFactsNamed(db: Db, v: { trailId: number; name: string; fromId: number; limit: number }): Promise<AttestationFactsRow[]> {
  return (await factsNamed(db, v)).map(factsOf);
}

// Compiled once: every attestation read back by id asks it.
const factsNamed = compiledOnce((db, v: { trailId: number; name: string; fromId: number; limit: number }) =>
  factsQuery(db).where('trail_id', '=', v.trailId).where('name', '=', v.name).where('id', '>=', v.fromId).orderBy('id').limit(v.limit),
);

/** The columns compliance reads. */
function factsQuery(db: Db) {
  // The data is looked into only where its text names the key or has an escape (which could
  // spell it), and only `target_artifacts` leaves the database: other data (a JUnit report's
  // suites, a megabyte of user_data) is neither copied out nor parsed on the event loop.
  const named = sql`data like ${'%"target!_artifacts"%'} escape '!' or data like ${'%\\u%'} escape '!'`;
  const targets = sql<string | null>`case when ${named} then ${jsonOf(db, 'data', 'target_artifacts')} end`;
  return db
    .selectFrom('attestations')
    .select(['id', 'trail_id', 'name', 'type', 'compliant', 'artifact_fingerprint', 'created_at'])
    .select(targets.as('targets'));
}

type FactsColumns = {
  id: number;
  trail_id: number;
  name: string;
  type: string;
  compliant: number | boolean;
  artifact_fingerprint: string | null;
  created_at: number;
  targets: string | null;
};

const factsOf = (r: FactsColumns): AttestationFactsRow => ({
  trailId: Number(r.trail_id),
  id: Number(r.id),
  name: r.name,
  type: r.type,
  compliant: Number(r.compliant) === 1,
  targets: r.targets === null ? [] : targetArtifactsOf({ target_artifacts: JSON.parse(r.targets) }),
  fingerprint: r.artifact_fingerprint,
  createdAt: Number(r.created_at),
});

/** The attachment of one attestation of a trail (none when the id is another trail's, or unknown). */
export async function attachmentOf(db: Db, trailId: number, attestationId: number): Promise<{ sha256: string | null; name: string | null } | undefined> {
  const row = await db
    .selectFrom('attestations')
    .select(['attachment_sha256', 'attachment_name'])
    .where('id', '=', attestationId)
    .where('trail_id', '=', trailId)
    .executeTakeFirst();
  return row && { sha256: row.attachment_sha256, name: row.attachment_name };
}

/** One suite of a JUnit attestation's `junit_results`. */
export interface JunitSuiteTotals {
  name: string;
  total: number;
  failures: number;
  errors: number;
  skipped: number;
  duration: number;
}

/** The `junit_results` of these attestations, by id: only that part of their data leaves the database. */
export async function junitResultsOf(db: Db, attestationIds: readonly number[]): Promise<Map<number, JunitSuiteTotals[]>> {
  const out = new Map<number, JunitSuiteTotals[]>();
  const results = jsonOf(db, 'data', 'junit_results');
  for (const chunk of inListChunks(attestationIds)) {
    const rows = await db.selectFrom('attestations').select('id').select(results.as('results')).where('id', 'in', chunk).where('type', '=', 'junit').execute();
    for (const r of rows) {
      const parsed = fromJson<unknown>(r.results, []);
      out.set(Number(r.id), Array.isArray(parsed) ? (parsed as JunitSuiteTotals[]) : []);
    }
  }
  return out;
}

export const reads = {
  attestationsOfFingerprints,
  attestationFactsOfTrails,
  complianceFactsOfTrails,
  attestationFactsNamed,
  attachmentOf,
  artifactNameOf,
  junitResultsOf,
};
