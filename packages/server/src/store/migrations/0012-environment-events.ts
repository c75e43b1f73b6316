import { sql, type Kysely } from 'kysely';
import { type Builder, types } from './builder.ts';

/**
 * Environment events: what started, scaled and exited at each snapshot, stored when the report
 * arrives so that listing them never diffs snapshots. Append-only like the evidence they come
 * from. The snapshots kept before are diffed here, once: an event's trail is then the one its
 * artifact's latest deployment in the environment links to, and its compliance is not known
 * (null), as nothing kept says what it was at the time.
 */
export const m012_environment_events: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema
    .createTable('environment_events')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('environment_id', t.ref, (c) => c.notNull().references('environments.id'))
    .addColumn('snapshot_index', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('artifact_name', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('instances_before', 'integer', (c) => c.notNull())
    .addColumn('instances_after', 'integer', (c) => c.notNull())
    .addColumn('trail_id', t.ref, (c) => c.references('trails.id'))
    .addColumn('repo_name', 'text')
    .addColumn('artifact_compliant', 'integer')
    .addColumn('snapshot_compliant', 'integer')
    .addColumn('reported_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('environment_events_order').on('environment_events').columns(['environment_id', 'snapshot_index', 'id']).execute();

  if (dialect === 'postgres') {
    // trailproof_refuse_change() comes from migration 0003.
    await sql`create trigger environment_events_append_only before update or delete on environment_events for each row execute function trailproof_refuse_change()`.execute(
      db,
    );
    await sql`create trigger environment_events_no_truncate before truncate on environment_events for each statement execute function trailproof_refuse_change()`.execute(
      db,
    );
  } else {
    for (const op of ['update', 'delete'] as const) {
      await sql`create trigger ${sql.raw(`environment_events_no_${op}`)} before ${sql.raw(op)} on environment_events begin select raise(abort, ${sql.lit(`evidence is append-only: ${op} on environment_events refused`)}); end`.execute(
        db,
      );
    }
  }
  await backfill(db);
};

/** Snapshots read at a time while backfilling (each holds an environment's whole list of artifacts). */
const snapshotsPerRead = 200;

interface SnapshotRow {
  id: number;
  environment_id: number;
  snapshot_index: number;
  artifacts: string;
  created_at: number;
}
interface DeploymentRow {
  environment_id: number;
  snapshot_index: number;
  fingerprint: string;
  trail_id: number | null;
  repo_name: string | null;
}

/** The deployments of these (environment, fingerprint) pairs, oldest first, by `${environmentId} ${fingerprint}`. */
async function deploymentsOf(db: Kysely<any>, pairs: Array<{ environmentId: number; fingerprint: string }>): Promise<Map<string, DeploymentRow[]>> {
  const out = new Map<string, DeploymentRow[]>();
  const fingerprints = [...new Set(pairs.map((p) => p.fingerprint))];
  const environments = [...new Set(pairs.map((p) => p.environmentId))];
  // In chunks, so that the statement stays under every database's limit on bound parameters.
  for (let i = 0; i < fingerprints.length; i += 500) {
    const rows: DeploymentRow[] = await db
      .selectFrom('deployments')
      .select(['environment_id', 'snapshot_index', 'fingerprint', 'trail_id', 'repo_name'])
      .where('environment_id', 'in', environments)
      .where('fingerprint', 'in', fingerprints.slice(i, i + 500))
      .orderBy('snapshot_index')
      .orderBy('id')
      .execute();
    for (const row of rows) {
      const key = `${Number(row.environment_id)} ${row.fingerprint}`;
      const list = out.get(key);
      if (list) list.push(row);
      else out.set(key, [row]);
    }
  }
  return out;
}

async function backfill(db: Kysely<any>): Promise<void> {
  // For deploymentsOf while this runs only: no query of the server needs it afterwards.
  await db.schema.createIndex('deployments_backfill_0012').on('deployments').columns(['environment_id', 'fingerprint', 'snapshot_index']).execute();
  await backfillEvents(db);
  await db.schema.dropIndex('deployments_backfill_0012').execute();
}

async function backfillEvents(db: Kysely<any>): Promise<void> {
  // Snapshots in (environment, index) order, a bounded number at a time.
  let previous: { environmentId: number; artifacts: RunningCount[] } | undefined;
  let after = { environmentId: -1, index: 0 };
  for (;;) {
    const rows: SnapshotRow[] = await db
      .selectFrom('snapshots')
      .select(['id', 'environment_id', 'snapshot_index', 'artifacts', 'created_at'])
      .where((eb) =>
        eb.or([
          eb('environment_id', '>', after.environmentId),
          eb.and([eb('environment_id', '=', after.environmentId), eb('snapshot_index', '>', after.index)]),
        ]),
      )
      .orderBy('environment_id')
      .orderBy('snapshot_index')
      .limit(snapshotsPerRead)
      .execute();
    if (!rows.length) return;
    const changes = [];
    for (const row of rows) {
      const environmentId = Number(row.environment_id);
      const artifacts = JSON.parse(row.artifacts) as RunningCount[];
      const before = previous?.environmentId === environmentId ? previous.artifacts : undefined;
      for (const change of changesBetween(before, artifacts)) changes.push({ row, environmentId, change });
      previous = { environmentId, artifacts };
      after = { environmentId, index: Number(row.snapshot_index) };
    }
    const deployed = await deploymentsOf(
      db,
      changes.map(({ environmentId, change }) => ({ environmentId, fingerprint: change.fingerprint })),
    );
    const events = changes.map(({ row, environmentId, change }) => {
      const index = Number(row.snapshot_index);
      // The artifact's latest deployment in this environment up to this snapshot (its list is oldest first).
      const deployment = deployed
        .get(`${environmentId} ${change.fingerprint}`)
        ?.filter((d) => Number(d.snapshot_index) <= index)
        .at(-1);
      return {
        environment_id: environmentId,
        snapshot_index: index,
        type: change.type,
        artifact_name: change.name,
        fingerprint: change.fingerprint,
        instances_before: change.instancesBefore,
        instances_after: change.instancesAfter,
        trail_id: deployment?.trail_id ?? null,
        repo_name: deployment?.repo_name ?? null,
        artifact_compliant: null,
        snapshot_compliant: null,
        reported_at: Number(row.created_at),
      };
    });
    // In chunks: every database limits the parameters of one statement.
    for (let i = 0; i < events.length; i += 500)
      await db
        .insertInto('environment_events')
        .values(events.slice(i, i + 500))
        .execute();
  }
}

/*
 * Frozen copies of evidence/events.ts and evidence/running.ts as they were when this migration was
 * written: a migration never changes, so it must not follow later edits of live code (and importing
 * it closed an import cycle, store -> migrations -> evidence -> store).
 */

/** The part of a running artifact an event depends on. */
interface RunningCount {
  name: string;
  fingerprint: string;
  instance_count: number;
}

interface ArtifactChange {
  type: 'started' | 'scaled' | 'exited';
  name: string;
  fingerprint: string;
  instancesBefore: number;
  instancesAfter: number;
}

const artifactKey = (a: { name: string; fingerprint: string }) => `${a.name}\u0000${a.fingerprint}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byArtifact = (a: { name: string; fingerprint: string }, b: { name: string; fingerprint: string }) =>
  compare(a.name, b.name) || compare(a.fingerprint, b.fingerprint);

/** The changes from `previous` (none before the first snapshot) to `current`, by artifact name, then fingerprint. */
function changesBetween(previous: readonly RunningCount[] | undefined, current: readonly RunningCount[]): ArtifactChange[] {
  const before = new Map((previous ?? []).map((a) => [artifactKey(a), a]));
  const after = new Map(current.map((a) => [artifactKey(a), a]));
  const changes: ArtifactChange[] = [];
  for (const [k, now] of after) {
    const was = before.get(k)?.instance_count ?? 0;
    if (was === now.instance_count) continue;
    changes.push({
      type: was === 0 ? 'started' : 'scaled',
      name: now.name,
      fingerprint: now.fingerprint,
      instancesBefore: was,
      instancesAfter: now.instance_count,
    });
  }
  for (const [k, was] of before) {
    if (!after.has(k)) changes.push({ type: 'exited', name: was.name, fingerprint: was.fingerprint, instancesBefore: was.instance_count, instancesAfter: 0 });
  }
  return changes.sort(byArtifact);
}
