/**
 * The database schema as Kysely sees it. JSON values are stored as text so that SQLite and
 * PostgreSQL share one query code path; times are Unix epoch seconds (double precision).
 */
import { PostgresAdapter, SqliteAdapter, sql, type Generated, type Kysely } from 'kysely';
import type { LogTables } from './log-tables.ts';

export interface OrganizationsTable {
  id: Generated<number>;
  name: string;
  created_at: number;
  /** How many environments it has (migration 0008). */
  environment_count: Generated<number>;
  /** How many trails it has (migration 0031, kept by an insert trigger). */
  trail_count: Generated<number>;
}

export interface TokensTable {
  /** Public part of the token, used to look it up. */
  id: string;
  organization_id: number;
  /** SHA-256 (hex) of the secret part; the secret itself is never stored. */
  secret_sha256: string;
  read_only: number;
  description: string | null;
  created_at: number;
  revoked_at: number | null;
  /** When it stops working (Unix seconds); null: never (migration 0013). */
  expires_at: number | null;
}

export interface BlobsTable {
  /** Content address: SHA-256 (hex) of `content`. */
  sha256: string;
  size: number;
  content: Uint8Array;
  created_at: number;
}

export interface FlowsTable {
  id: Generated<number>;
  organization_id: number;
  name: string;
  description: string;
  visibility: string;
  template_sha256: string | null;
  created_at: number;
  last_modified_at: number;
  /** Added by migration 0002. */
  repo_url: string | null;
  /** JSON object of text values (migration 0024). */
  tags: Generated<string>;
  /** How many trails it has (migration 0031, kept by an insert trigger). */
  trail_count: Generated<number>;
}

export interface TrailsTable {
  id: Generated<number>;
  flow_id: number;
  /** The flow's organisation, copied for the organisation's list (migration 0021); set on every trail. */
  organization_id: number | null;
  name: string;
  description: string;
  commit_sha: string | null;
  repo_name: string | null;
  git_commit_info: string | null;
  repo_info: string | null;
  origin_url: string | null;
  external_urls: string | null;
  user_data: string | null;
  template_sha256: string | null;
  /** The id of the token that created the trail; null before migration 0014. */
  created_by_token: string | null;
  created_at: number;
  last_modified_at: number;
}

export interface AttestationsTable {
  id: Generated<number>;
  trail_id: number;
  name: string;
  type: string;
  /** The attestation input as JSON. */
  data: string;
  artifact_fingerprint: string | null;
  attachment_sha256: string | null;
  attachment_name: string | null;
  compliant: number;
  /** The id of the token that stored it; null before migration 0014. */
  created_by_token: string | null;
  created_at: number;
}

/** An artifact reported to a trail (migration 0022). Append-only evidence; one per trail and fingerprint. */
export interface ArtifactsTable {
  id: Generated<number>;
  organization_id: number;
  flow_id: number;
  trail_id: number;
  /** SHA-256, lowercase hex. */
  fingerprint: string;
  filename: string;
  template_reference_name: string;
  git_commit: string | null;
  /** JSON as the CLI sent them. */
  git_commit_info: string | null;
  repo_info: string | null;
  /** `repo_info.name`, for listing by repository. */
  repo_name: string | null;
  build_url: string;
  commit_url: string;
  repo_url: string | null;
  external_urls: string | null;
  annotations: string | null;
  created_by_token: string | null;
  created_at: number;
}

export interface EnvironmentsTable {
  id: Generated<number>;
  organization_id: number;
  name: string;
  /** Lower-cased name, for case-insensitive substring search. */
  name_lower: string;
  type: string;
  description: string;
  include_scaling: number;
  tags: string;
  policies: string;
  included_environments: string;
  space_id: string | null;
  last_modified_at: number;
  last_reported_at: number | null;
  last_changed_at: number | null;
  state: number | null;
}

export interface EnvironmentTagsTable {
  environment_id: number;
  key: string;
  value: string;
}

export interface SnapshotsTable {
  id: Generated<number>;
  environment_id: number;
  snapshot_index: number;
  /** The running artifacts as JSON. */
  artifacts: string;
  /** The id of the token that reported it; null before migration 0015. */
  created_by_token: string | null;
  created_at: number;
  /** 1 or 0: compliant when made, by the environment's policies then (migration 0027); null before. */
  compliant: number | null;
}

export interface DeploymentsTable {
  id: Generated<number>;
  organization_id: number;
  environment_id: number;
  env_name: string;
  snapshot_index: number;
  fingerprint: string;
  artifact_name: string;
  deployed_at: number;
  trail_id: number | null;
  repo_name: string | null;
}

/** What changed in an environment at a snapshot (migration 0012); never changed afterwards. */
export interface EnvironmentEventsTable {
  id: Generated<number>;
  environment_id: number;
  snapshot_index: number;
  type: string;
  artifact_name: string;
  fingerprint: string;
  instances_before: number;
  instances_after: number;
  trail_id: number | null;
  repo_name: string | null;
  /** 1, 0, or null when not known (events of snapshots kept before 0012). */
  artifact_compliant: number | null;
  snapshot_compliant: number | null;
  reported_at: number;
}

export interface ApprovalsTable {
  id: Generated<number>;
  flow_id: number;
  release_number: number;
  target_artifact: string;
  base_artifact: string;
  artifact_name: string;
  description: string;
  environment: string | null;
  /** Commit SHAs as a JSON array. */
  src_commit_list: string;
  user_data: string | null;
  state: string;
  /** The id of the token that requested it; null before migration 0015. */
  created_by_token: string | null;
  created_at: number;
  last_modified_at: number;
}

export interface ReviewsTable {
  id: Generated<number>;
  approval_id: number;
  state: string;
  comment: string;
  approved_by: string;
  approval_url: string;
  timestamp: number;
  /** The id of the token that sent it; null before migration 0015. */
  created_by_token: string | null;
}

/** One link of an organisation's hash chain (see chain.ts). Append-only. */
export interface EvidenceLogTable {
  organization_id: number;
  seq: number;
  type: string;
  /** Canonical JSON of the record; `hash` = SHA-256(prev_hash ‖ record). */
  record: string;
  prev_hash: string;
  hash: string;
  created_at: number;
}

/**
 * Deployments counted per UTC day, for one environment and/or repository or for all ('' = any):
 * `total_count` sums whole days here instead of scanning every row of the window.
 */
export interface DeploymentCountsTable {
  organization_id: number;
  env_name: string;
  repo_name: string;
  day: number;
  count: number;
}

/** An organisation's deployments counted per UTC hour (`floor(deployed_at / 3600)`), for the edges of an unfiltered window. */
export interface DeploymentHourCountsTable {
  organization_id: number;
  hour: number;
  count: number;
}

/** A console session (migration 0016): the SHA-256 of its id, the token it was opened with, when it ends. */
export interface ConsoleSessionsTable {
  id_sha256: string;
  token_id: string;
  organization_id: number;
  created_at: number;
  expires_at: number;
}

/** A console session of a person an OpenID provider vouched for (migration 0028). */
export interface ConsoleIdentitySessionsTable {
  id_sha256: string;
  organization_id: number;
  issuer: string;
  subject: string;
  email: string | null;
  role: string;
  created_at: number;
  expires_at: number;
}

/** An environment policy by name (migration 0024); its content is in its versions. */
export interface PoliciesTable {
  id: Generated<number>;
  organization_id: number;
  name: string;
  description: string;
  /** `env`, the only type the Kosli CLI sends. */
  type: string;
  created_at: number;
}

/** One version of a policy: the YAML as uploaded and its SHA-256. Append-only, chained. */
export interface PolicyVersionsTable {
  id: Generated<number>;
  policy_id: number;
  version: number;
  comment: string;
  policy_yaml: string;
  sha256: string;
  created_by_token: string | null;
  created_at: number;
}

/** A verdict of `assert artifact` (migration 0026): its canonical JSON, once per distinct text in an organisation. */
export interface VerdictsTable {
  id: Generated<number>;
  organization_id: number;
  fingerprint: string;
  verdict: string;
  verdict_sha256: string;
  compliant: number;
  created_by_token: string | null;
  created_at: number;
}

/** An artifact allowed in an environment (migration 0027); append-only. */
export interface AllowlistEntriesTable {
  id: Generated<number>;
  organization_id: number;
  environment_id: number;
  fingerprint: string;
  artifact_name: string;
  description: string;
  created_by_token: string | null;
  created_at: number;
}

/** A control by its identifier (migration 0027), named by decisions and policies' `for_control` rules. */
export interface ControlsTable {
  id: Generated<number>;
  organization_id: number;
  identifier: string;
  name: string;
  description: string | null;
  created_by_token: string | null;
  created_at: number;
}

export interface Database extends LogTables {
  verdicts: VerdictsTable;
  allowlist_entries: AllowlistEntriesTable;
  controls: ControlsTable;
  policies: PoliciesTable;
  policy_versions: PolicyVersionsTable;
  organizations: OrganizationsTable;
  tokens: TokensTable;
  blobs: BlobsTable;
  flows: FlowsTable;
  trails: TrailsTable;
  attestations: AttestationsTable;
  artifacts: ArtifactsTable;
  environments: EnvironmentsTable;
  environment_tags: EnvironmentTagsTable;
  snapshots: SnapshotsTable;
  deployments: DeploymentsTable;
  environment_events: EnvironmentEventsTable;
  approvals: ApprovalsTable;
  reviews: ReviewsTable;
  evidence_log: EvidenceLogTable;
  deployment_counts: DeploymentCountsTable;
  deployment_hour_counts: DeploymentHourCountsTable;
  console_sessions: ConsoleSessionsTable;
  console_identity_sessions: ConsoleIdentitySessionsTable;
}

export type Db = Kysely<Database>;

/**
 * Most values in one statement's `in (...)` list, and most rows in one multi-row INSERT: 500 rows
 * of up to 65 columns stay under SQLite's 32,766 bound parameters (and PostgreSQL's 65,535).
 */
const maxListPerStatement = 500;

/**
 * `values` in slices of at most 500, one per statement's `in (...)` list, so that any number of
 * values stays under every database's limit on one statement's bound parameters.
 */
export function inListChunks<T>(values: readonly T[]): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < values.length; i += maxListPerStatement) chunks.push(values.slice(i, i + maxListPerStatement));
  return chunks;
}

/**
 * The first `limit` rows, in `order`, of a read of any number of `values`: `read` runs once per
 * slice of them and answers that slice's first `limit` rows in the same order, which hold the
 * first `limit` of the whole list.
 */
export async function firstOfChunks<V, R>(
  values: readonly V[],
  limit: number,
  read: (chunk: V[]) => Promise<R[]>,
  order: (a: R, b: R) => number,
): Promise<R[]> {
  const slices = await Promise.all(inListChunks(values).map(read));
  return slices.flat().sort(order).slice(0, limit);
}

/**
 * `rows` in slices of at most 500, one per multi-row INSERT: a statement per slice, all in the
 * caller's transaction, so that a report of thousands of artifacts is stored whole or not at all.
 */
export const insertChunks: <T>(rows: readonly T[]) => T[][] = inListChunks;

/** Whether `db` (or the transaction) is on SQLite, where a statement may be cheaper split than batched. */
export const isSqlite = (db: Db) => db.getExecutor().adapter instanceof SqliteAdapter;
/** Whether `db` (or the transaction) is on PostgreSQL, where a statement may need a cast or a lock of its own. */
export const isPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;

/** The text of `key` in the JSON text `column` holds (null where there is none), as each engine reads it: PostgreSQL casts the text to json first. */
export const jsonTextOf = (db: Db, column: string, key: string) =>
  isSqlite(db) ? sql<string | null>`(${sql.ref(column)} ->> ${sql.lit(`$.${key}`)})` : sql<string | null>`(${sql.ref(column)}::json ->> ${sql.lit(key)})`;

/** The JSON text of `key`'s value in the JSON text `column` holds (null where there is none): `jsonTextOf` for a value that is itself JSON. */
export const jsonOf = (db: Db, column: string, key: string) =>
  isSqlite(db) ? sql<string | null>`(${sql.ref(column)} -> ${sql.lit(`$.${key}`)})` : sql<string | null>`((${sql.ref(column)}::json -> ${sql.lit(key)})::text)`;

/** Which SQL dialect a database speaks; migrations differ only in column types. */
export type DialectName = 'sqlite' | 'postgres';
