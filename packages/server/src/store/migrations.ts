/**
 * Numbered migrations (one file each in `migrations/`), applied in order at start-up inside one
 * transaction each. A migration, once released, never changes: a change is a new migration.
 */
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { DialectName } from './database.ts';
import type { Builder } from './migrations/builder.ts';
import { m001_initial } from './migrations/0001-initial.ts';
import { m002_evidence } from './migrations/0002-evidence.ts';
import { m003_tamper_evidence } from './migrations/0003-tamper-evidence.ts';
import { m004_deployment_counts } from './migrations/0004-deployment-counts.ts';
import { m005_refuse_truncate } from './migrations/0005-refuse-truncate.ts';
import { m006_environment_order_indexes } from './migrations/0006-environment-order-indexes.ts';
import { m007_blob_compression } from './migrations/0007-blob-compression.ts';
import { m008_environment_counts } from './migrations/0008-environment-counts.ts';
import { m009_environment_name_index } from './migrations/0009-environment-name-index.ts';
import { m010_token_notifications } from './migrations/0010-token-notifications.ts';
import { m011_deployment_hour_counts } from './migrations/0011-deployment-hour-counts.ts';
import { m012_environment_events } from './migrations/0012-environment-events.ts';
import { m013_token_expiry } from './migrations/0013-token-expiry.ts';
import { m014_evidence_provenance } from './migrations/0014-evidence-provenance.ts';
import { m015_approval_snapshot_provenance } from './migrations/0015-approval-snapshot-provenance.ts';
import { m016_console_sessions } from './migrations/0016-console-sessions.ts';
import { m017_transparency_log } from './migrations/0017-transparency-log.ts';
import { m018_environment_badges } from './migrations/0018-environment-badges.ts';
import { m019_log_subtree_positions } from './migrations/0019-log-subtree-positions.ts';
import { m020_junit_failed_cases } from './migrations/0020-junit-failed-cases.ts';
import { m021_trails_organization } from './migrations/0021-trails-organization.ts';
import { m022_artifacts } from './migrations/0022-artifacts.ts';
import { m023_custom_attestation_types } from './migrations/0023-custom-attestation-types.ts';
import { m024_policies } from './migrations/0024-policies.ts';
import { m025_artifact_reads } from './migrations/0025-artifact-reads.ts';
import { m026_verdicts } from './migrations/0026-verdicts.ts';
import { m027_allowlists_controls } from './migrations/0027-allowlists-controls.ts';
import { m028_console_identities } from './migrations/0028-console-identities.ts';
import { m029_artifact_names } from './migrations/0029-artifact-names.ts';
import { m030_trail_names } from './migrations/0030-trail-names.ts';
import { m031_trail_counts } from './migrations/0031-trail-counts.ts';

export { appendOnlyTables } from './migrations/builder.ts';

/** All migrations, by name; names sort in the order they apply. */
export const migrations: Record<string, Builder> = {
  '0001_initial': m001_initial,
  '0002_evidence': m002_evidence,
  '0003_tamper_evidence': m003_tamper_evidence,
  '0004_deployment_counts': m004_deployment_counts,
  '0005_refuse_truncate': m005_refuse_truncate,
  '0006_environment_order_indexes': m006_environment_order_indexes,
  '0007_blob_compression': m007_blob_compression,
  '0008_environment_counts': m008_environment_counts,
  '0009_environment_name_index': m009_environment_name_index,
  '0010_token_notifications': m010_token_notifications,
  '0011_deployment_hour_counts': m011_deployment_hour_counts,
  '0012_environment_events': m012_environment_events,
  '0013_token_expiry': m013_token_expiry,
  '0014_evidence_provenance': m014_evidence_provenance,
  '0015_approval_snapshot_provenance': m015_approval_snapshot_provenance,
  '0016_console_sessions': m016_console_sessions,
  '0017_transparency_log': m017_transparency_log,
  '0018_environment_badges': m018_environment_badges,
  '0019_log_subtree_positions': m019_log_subtree_positions,
  '0020_junit_failed_cases': m020_junit_failed_cases,
  '0021_trails_organization': m021_trails_organization,
  '0022_artifacts': m022_artifacts,
  '0023_custom_attestation_types': m023_custom_attestation_types,
  '0024_policies': m024_policies,
  '0025_artifact_reads': m025_artifact_reads,
  '0026_verdicts': m026_verdicts,
  '0027_allowlists_controls': m027_allowlists_controls,
  '0028_console_identities': m028_console_identities,
  '0029_artifact_names': m029_artifact_names,
  '0030_trail_names': m030_trail_names,
  '0031_trail_counts': m031_trail_counts,
};

/**
 * Applies every pending migration; throws (and applies nothing more) if one fails. A database
 * that has exactly these migrations is left alone after one read: Kysely's migrator reads the
 * whole schema twice and takes its lock first (on PostgreSQL an advisory lock, for which
 * processes starting together wait on each other), even when nothing is pending.
 */
export async function migrate(db: Kysely<any>, dialect: DialectName, schema?: string): Promise<void> {
  if (await allApplied(db, schema)) return;
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, build] of Object.entries(migrations)) out[name] = { up: (d) => build(d, dialect) };
      return out;
    },
  };
  const { error } = await new Migrator({
    db,
    provider,
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    ...(schema ? { migrationTableSchema: schema } : {}),
  }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/** Whether the database has applied exactly the migrations above (none missing, none unknown); false when it has no migrations table. */
async function allApplied(db: Kysely<any>, schema?: string): Promise<boolean> {
  const table = schema ? sql.id(schema, 'schema_migrations') : sql.id('schema_migrations');
  let applied: string[];
  try {
    applied = (await sql<{ name: string }>`select name from ${table}`.execute(db)).rows.map((row) => row.name);
  } catch {
    // No table yet (a new database), or it cannot be read: the migrator creates it or says what is wrong.
    return false;
  }
  const known = Object.keys(migrations);
  return applied.length === known.length && known.every((name) => applied.includes(name));
}
