/**
 * Reading artifacts (`kosli get artifact`, `list artifacts`, `search`): by fingerprint or commit,
 * full or a prefix, from the indexes of migrations 0022 and 0025, and where each fingerprint runs
 * and ran from the environments' events. A prefix is a range of an index (`[p, p + 'g')`: every
 * value is lower-case hex), so no read scans an organisation's artifacts.
 */
import { compiledOnce } from '../compiled-once.ts';
import { inListChunks, isPostgres, type Db } from '../database.ts';
import { sql } from 'kysely';
import { rowsOfIds } from '../rows-of-ids.ts';
import { artifactRowOf, artifactRowsQuery, type ArtifactRow } from './artifacts.ts';
import { complianceFactsOfTrails } from './attestation-facts.ts';
import { logIndexesOf } from './log.ts';

/** The most rows a read of artifacts answers: a prefix may match many, a page asks for at most 100. */
export const maxArtifactsRead = 100;

/** Which column a value is matched against. */
export type ArtifactKey = 'fingerprint' | 'git_commit';

/** A stored artifact with the template its trail is evaluated against (the trail's, else its flow's), so a read needs no lookup of the trail. */
export type ReadArtifactRow = ArtifactRow & { effectiveTemplateSha256: string | null };

/** The artifacts' rows with their trails' and flows' templates. */
export const readRowsQuery = (db: Db) =>
  artifactRowsQuery(db).select(['t.template_sha256 as trail_template_sha256', 'f.template_sha256 as flow_template_sha256']);

export const readRowOf = (
  r: Parameters<typeof artifactRowOf>[0] & { trail_template_sha256: string | null; flow_template_sha256: string | null },
): ReadArtifactRow => ({
  ...artifactRowOf(r),
  effectiveTemplateSha256: r.trail_template_sha256 ?? r.flow_template_sha256,
});

/** Artifacts a page reads in one statement: each may carry 100 URLs of 2 KB and 100 annotations. */
const artifactsPerRead = 10;

// Compiled once per number of ids: built anew, the query's building and compiling cost a read of one artifact more than its statement.
const rowsOfChunk = compiledOnce((db, v: { ids: number[] }) => readRowsQuery(db).where('r.id', 'in', v.ids));

/** The artifacts of `ids`, in that order, ten a statement (see rows-of-ids.ts). */
const artifactsOfIds = (db: Db, ids: readonly number[]) => rowsOfIds(ids, artifactsPerRead, (chunk) => rowsOfChunk(db, { ids: chunk }), readRowOf);

/** `[from, to)` of the values starting with `prefix` (lower-case hex). */
const rangeOf = (prefix: string) => ({ from: prefix, to: `${prefix}g` });

const inFlow = compiledOnce((db, v: { organizationId: number; flow: string; from: string; to: string; trailId?: number; limit: number }, key: ArtifactKey) =>
  db
    .selectFrom('artifacts as r')
    .innerJoin('flows as f', 'f.id', 'r.flow_id')
    .select('r.id')
    .where('r.organization_id', '=', v.organizationId)
    .where(`r.${key}`, '>=', v.from)
    .where(`r.${key}`, '<', v.to)
    .where('f.name', '=', v.flow)
    .$if(v.trailId !== undefined, (qb) => qb.where('r.trail_id', '=', v.trailId!))
    .orderBy('r.id', 'desc')
    .limit(v.limit),
);

/** The artifacts of the flow named `flow` (and one trail of it) whose fingerprint or commit starts with `prefix`, newest first. */
export async function findFlowArtifacts(
  db: Db,
  organizationId: number,
  flow: string,
  match: { key: ArtifactKey; prefix: string; trailId?: number },
  limit: number,
): Promise<ReadArtifactRow[]> {
  const rows = await inFlow(db, { organizationId, flow, ...rangeOf(match.prefix), trailId: match.trailId, limit }, match.key);
  return artifactsOfIds(
    db,
    rows.map((r) => Number(r.id)),
  );
}

const inOrganization = compiledOnce((db, v: { organizationId: number; from: string; to: string; limit: number }, key: ArtifactKey) =>
  readRowsQuery(db)
    .where('r.organization_id', '=', v.organizationId)
    .where(`r.${key}`, '>=', v.from)
    .where(`r.${key}`, '<', v.to)
    .orderBy('r.id', 'desc')
    .limit(v.limit),
);

/** The organisation's artifacts whose fingerprint, or whose commit, starts with `prefix`, newest first: what a search finds. */
export async function searchArtifactRows(
  db: Db,
  organizationId: number,
  prefix: string,
  limit: number,
): Promise<{ byFingerprint: ReadArtifactRow[]; byCommit: ReadArtifactRow[] }> {
  const v = { organizationId, ...rangeOf(prefix), limit };
  const [byFingerprint, byCommit] = await Promise.all([inOrganization(db, v, 'fingerprint'), inOrganization(db, v, 'git_commit')]);
  return { byFingerprint: byFingerprint.map(readRowOf), byCommit: byCommit.map(readRowOf) };
}

/** Past every character a name can hold after the prefix, byte by byte (U+10FFFF, the last code point). */
const pastPrefix = '\u{10FFFF}';

// The name compared byte by byte on both engines (the index of migration 0029).
const nameRange = compiledOnce((db, v: { organizationId: number; from: string; to: string; limit: number }) => {
  const name = isPostgres(db) ? sql<string>`r.filename collate "C"` : sql<string>`r.filename`;
  return readRowsQuery(db)
    .where('r.organization_id', '=', v.organizationId)
    .where(name, '>=', v.from)
    .where(name, '<', v.to)
    .orderBy(name)
    .orderBy('r.id')
    .limit(v.limit);
});

/** The organisation's artifacts whose name (`filename`) starts with `prefix`, by name (then oldest first), at most `limit`: a range of the index on names. */
export async function artifactsNamed(db: Db, organizationId: number, prefix: string, limit: number): Promise<ReadArtifactRow[]> {
  if (!prefix) return [];
  return (await nameRange(db, { organizationId, from: prefix, to: `${prefix}${pastPrefix}`, limit })).map(readRowOf);
}

/** What a list of artifacts is narrowed to: a flow or a repository (`repo_info.name`). */
export interface ArtifactListFilter {
  flowId?: number;
  repoName?: string;
}

/** A page of the organisation's artifacts, newest first (ties by id), from the index of the filter's column. */
export async function listArtifactPage(db: Db, organizationId: number, filter: ArtifactListFilter, offset: number, limit: number): Promise<ReadArtifactRow[]> {
  const rows = await db
    .selectFrom('artifacts as r')
    .select('r.id')
    .where('r.organization_id', '=', organizationId)
    .$if(filter.flowId !== undefined, (qb) => qb.where('r.flow_id', '=', filter.flowId!))
    .$if(filter.repoName !== undefined, (qb) => qb.where('r.repo_name', '=', filter.repoName!))
    .orderBy('r.created_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return artifactsOfIds(
    db,
    rows.map((r) => Number(r.id)),
  );
}

/** Whether any artifact of the organisation names this repository. */
export async function hasRepository(db: Db, organizationId: number, repoName: string): Promise<boolean> {
  const row = await db
    .selectFrom('artifacts')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('repo_name', '=', repoName)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** A fingerprint seen running in an environment of the organisation, under the name it ran as. */
export interface DeployedFingerprint {
  fingerprint: string;
  artifactName: string;
}

const deployedIn = compiledOnce((db, v: { organizationId: number; from: string; to: string; limit: number }) =>
  db
    .selectFrom('deployments')
    .select(['fingerprint', (eb) => eb.fn.min('artifact_name').as('artifact_name')])
    .where('organization_id', '=', v.organizationId)
    .where('fingerprint', '>=', v.from)
    .where('fingerprint', '<', v.to)
    .groupBy('fingerprint')
    .orderBy('fingerprint')
    .limit(v.limit),
);

/** Fingerprints that started in the organisation's environments and start with `prefix` (one row each, by the deployments' index). */
export async function deployedFingerprints(db: Db, organizationId: number, prefix: string, limit: number): Promise<DeployedFingerprint[]> {
  const rows = await deployedIn(db, { organizationId, ...rangeOf(prefix), limit });
  return rows.map((r) => ({ fingerprint: r.fingerprint, artifactName: String(r.artifact_name) }));
}

/** One environment event of a fingerprint, with its environment's name. */
export interface FingerprintEventRow {
  fingerprint: string;
  environmentId: number;
  environmentName: string;
  /** The name it ran as there. */
  artifactName: string;
  type: 'started' | 'scaled' | 'exited';
  snapshotIndex: number;
  instancesBefore: number;
  instancesAfter: number;
  reportedAt: number;
}

/** The most events read for one request's fingerprints: the newest are kept. */
export const maxFingerprintEvents = 2_000;

const eventsOf = compiledOnce((db, v: { organizationId: number; fingerprints: string[]; limit: number }) =>
  db
    .selectFrom('environment_events as ev')
    .innerJoin('environments as e', 'e.id', 'ev.environment_id')
    .select([
      'ev.fingerprint',
      'ev.environment_id',
      'e.name',
      'ev.artifact_name',
      'ev.type',
      'ev.snapshot_index',
      'ev.instances_before',
      'ev.instances_after',
      'ev.reported_at',
      'ev.id',
    ])
    .where('ev.fingerprint', 'in', v.fingerprints)
    .where('e.organization_id', '=', v.organizationId)
    .orderBy('ev.id', 'desc')
    .limit(v.limit),
);

const latestOf = compiledOnce((db, v: { environmentIds: number[] }) =>
  db
    .selectFrom('snapshots')
    .select(['environment_id', (eb) => eb.fn.max('snapshot_index').as('latest')])
    .where('environment_id', 'in', v.environmentIds)
    .groupBy('environment_id'),
);

/**
 * The environment events of these fingerprints in the organisation's environments, oldest first
 * (the newest `maxFingerprintEvents`), and the latest snapshot index of each environment named.
 */
export async function fingerprintWhereabouts(
  db: Db,
  organizationId: number,
  fingerprints: readonly string[],
): Promise<{ events: FingerprintEventRow[]; latestSnapshots: Map<number, number> }> {
  const distinct = [...new Set(fingerprints)];
  const rows = [];
  for (const chunk of inListChunks(distinct)) rows.push(...(await eventsOf(db, { organizationId, fingerprints: chunk, limit: maxFingerprintEvents })));
  rows.sort((a, b) => Number(a.id) - Number(b.id));
  const events = rows.slice(-maxFingerprintEvents).map((r) => ({
    fingerprint: r.fingerprint,
    environmentId: Number(r.environment_id),
    environmentName: r.name,
    artifactName: r.artifact_name,
    type: r.type as FingerprintEventRow['type'],
    snapshotIndex: Number(r.snapshot_index),
    instancesBefore: Number(r.instances_before),
    instancesAfter: Number(r.instances_after),
    reportedAt: Number(r.reported_at),
  }));
  const latestSnapshots = new Map<number, number>();
  const environmentIds = [...new Set(events.map((e) => e.environmentId))];
  for (const chunk of inListChunks(environmentIds)) {
    for (const r of await latestOf(db, { environmentIds: chunk })) latestSnapshots.set(Number(r.environment_id), Number(r.latest));
  }
  return { events, latestSnapshots };
}

/**
 * What the artifact reads add to the artifacts' rows, in one read: the compliance facts of their
 * trails (`trailIds`), the log index of each of `artifactIds`, and where each of `fingerprints`
 * runs and ran. On SQLite one message to a reader thread, which runs all their statements, where
 * three calls left the log's and the environments' statements on the event loop.
 */
export async function artifactReadFacts(
  db: Db,
  organizationId: number,
  of: { trailIds: readonly number[]; artifactIds: readonly number[]; fingerprints: readonly string[] },
) {
  const [compliance, logIndexes, whereabouts] = await Promise.all([
    complianceFactsOfTrails(db, of.trailIds),
    of.artifactIds.length ? logIndexesOf(db, organizationId, 'artifacts', of.artifactIds) : new Map<number, number>(),
    fingerprintWhereabouts(db, organizationId, of.fingerprints),
  ]);
  return { compliance, logIndexes, whereabouts };
}

/** What `artifactReadFacts` reads for `rows`: their trails, their log indexes and their fingerprints. */
export const readFactsOf = (rows: readonly ReadArtifactRow[]) => ({
  trailIds: [...new Set(rows.map((r) => r.trailId))],
  artifactIds: rows.map((r) => r.id),
  fingerprints: [...new Set(rows.map((r) => r.fingerprint))],
});

/** Which rows of `flowArtifactsWithFacts` get their facts read. */
export type FactsOfRows = 'all' | 'newest of one fingerprint';

/**
 * `findFlowArtifacts` and `artifactReadFacts` of its rows (`factsOf`: all of them, or the newest
 * only when all are of one fingerprint, as `get artifact flow@fingerprint` answers), in one read:
 * on SQLite one message to a reader thread runs every statement of a get artifact. `facts` is null
 * when no row was found (or a prefix matched several fingerprints, which the read refuses).
 */
export async function flowArtifactsWithFacts(
  db: Db,
  organizationId: number,
  flow: string,
  match: { key: ArtifactKey; prefix: string; trailId?: number },
  limit: number,
  factsOf: FactsOfRows,
) {
  const rows = await findFlowArtifacts(db, organizationId, flow, match, limit);
  const of = factsOf === 'all' ? rows : new Set(rows.map((r) => r.fingerprint)).size === 1 ? rows.slice(0, 1) : [];
  return { rows, facts: of.length ? await artifactReadFacts(db, organizationId, readFactsOf(of)) : null };
}

/**
 * What `search` reads, in one read (on SQLite one message to a reader thread): the artifacts whose
 * fingerprint or commit starts with `prefix`, the fingerprints seen running that start with it,
 * the artifacts' rows once each (newest first), the fingerprints seen running that no artifact
 * reports (`unreported`), and `artifactReadFacts` of all of them without log indexes (null when
 * nothing matched).
 */
export async function searchWithFacts(db: Db, organizationId: number, prefix: string, limit: number) {
  const [{ byFingerprint, byCommit }, deployed] = await Promise.all([
    searchArtifactRows(db, organizationId, prefix, limit),
    deployedFingerprints(db, organizationId, prefix, limit),
  ]);
  const rows = [...new Map([...byFingerprint, ...byCommit].sort((a, b) => b.id - a.id).map((r) => [r.id, r])).values()];
  const reported = new Set(rows.map((r) => r.fingerprint));
  const unreported = deployed.filter((d) => !reported.has(d.fingerprint));
  const fingerprints = [...new Set([...rows.map((r) => r.fingerprint), ...unreported.map((d) => d.fingerprint)])];
  const facts = fingerprints.length
    ? await artifactReadFacts(db, organizationId, { trailIds: [...new Set(rows.map((r) => r.trailId))], artifactIds: [], fingerprints })
    : null;
  return { byFingerprint, byCommit, deployed, rows, unreported, fingerprints, facts };
}

export const reads = {
  flowArtifactsWithFacts,
  searchWithFacts,
  findFlowArtifacts,
  searchArtifactRows,
  artifactsNamed,
  listArtifactPage,
  hasRepository,
  deployedFingerprints,
  fingerprintWhereabouts,
  artifactReadFacts,
};
export const writes = {};
