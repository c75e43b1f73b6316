/**
 * Environments: created or updated (their definitions), found by name, their reports recorded,
 * and what runs in each now. Pages of them are read by environment-list.ts.
 */
import { compiledOnce } from '../compiled-once.ts';
import type { Db } from '../database.ts';
import { inTransaction } from '../transactions.ts';
import { fromJson } from '../json.ts';
import type { EnvironmentListRow } from './environment-list.ts';
import type { RunningArtifact } from './snapshots.ts';

export interface EnvironmentRecord {
  org: string;
  name: string;
  type: string;
  description: string;
  last_modified_at: number;
  include_scaling: boolean;
  tags: Record<string, unknown>;
  /** 0 before the first report (SPEC.md types it as a number). */
  last_reported_at: number;
  /** 0 before the first report. */
  last_changed_at: number;
  /** false before the first report: nothing has been shown compliant yet (SPEC.md types it as a boolean). */
  state: boolean;
  policies: string[];
  included_environments: string[];
}

export interface EnvironmentInput {
  name: string;
  type: string;
  description?: string;
  include_scaling?: boolean;
  tags?: Record<string, unknown>;
  policies?: string[];
  included_environments?: string[];
  space_id?: string | null;
}

/** Creates or updates an environment (its definition, not its reports); says which. */
export async function upsertEnvironment(db: Db, organizationId: number, input: EnvironmentInput, at: number): Promise<{ created: boolean; id: number }> {
  const values = {
    type: input.type,
    description: input.description ?? '',
    include_scaling: input.include_scaling ? 1 : 0,
    tags: JSON.stringify(input.tags ?? {}),
    policies: JSON.stringify(input.policies ?? []),
    included_environments: JSON.stringify(input.included_environments ?? []),
    space_id: input.space_id ?? null,
    last_modified_at: at,
  };
  const existing = await db
    .selectFrom('environments')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('name', '=', input.name)
    .executeTakeFirst();
  let id: number;
  if (existing) {
    id = Number(existing.id);
    await db.updateTable('environments').set(values).where('id', '=', id).execute();
    await db.deleteFrom('environment_tags').where('environment_id', '=', id).execute();
  } else {
    id = await inTransaction(db, async (trx) => {
      const row = await trx
        .insertInto('environments')
        .values({
          ...values,
          organization_id: organizationId,
          name: input.name,
          name_lower: input.name.toLowerCase(),
          last_reported_at: null,
          last_changed_at: null,
          state: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('organizations')
        .set((eb) => ({ environment_count: eb('environment_count', '+', 1) }))
        .where('id', '=', organizationId)
        .execute();
      return Number(row.id);
    });
  }
  const tags = Object.entries(input.tags ?? {});
  if (tags.length) {
    await db
      .insertInto('environment_tags')
      .values(tags.map(([key, value]) => ({ environment_id: id, key, value: tagText(value) })))
      .execute();
  }
  return { created: !existing, id };
}

const tagText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * An environment as the API shows it. The database keeps NULL for "never reported" (so it
 * sorts apart); the API answers the number and boolean SPEC.md types these fields as.
 */
export function environmentFromRow(r: EnvironmentListRow, orgName: string): EnvironmentRecord {
  return {
    org: orgName,
    name: r.name,
    type: r.type,
    description: r.description,
    last_modified_at: Number(r.last_modified_at),
    include_scaling: Number(r.include_scaling) === 1,
    tags: JSON.parse(r.tags),
    last_reported_at: Number(r.last_reported_at ?? 0),
    last_changed_at: Number(r.last_changed_at ?? 0),
    state: r.state !== null && Number(r.state) === 1,
    policies: JSON.parse(r.policies),
    included_environments: JSON.parse(r.included_environments),
  };
}

export interface EnvironmentRow extends EnvironmentRecord {
  id: number;
  space_id: string | null;
}

export async function findEnvironment(db: Db, organizationId: number, orgName: string, name: string): Promise<EnvironmentRow | undefined> {
  const [r] = await environmentNamed(db, { organizationId, name });
  if (!r) return undefined;
  return { id: Number(r.id), ...environmentFromRow(r, orgName), space_id: r.space_id };
}

// Compiled once: every assert and environment report asks it, and building it cost about what its statement did.
const environmentNamed = compiledOnce((db, v: { organizationId: number; name: string }) =>
  db.selectFrom('environments').selectAll().where('organization_id', '=', v.organizationId).where('name', '=', v.name),
);

/** The environments of an organisation with these names (to check included environments). */
export async function typesOfEnvironments(db: Db, organizationId: number, names: readonly string[]): Promise<Map<string, string>> {
  if (!names.length) return new Map();
  const rows = await db
    .selectFrom('environments')
    .select(['name', 'type'])
    .where('organization_id', '=', organizationId)
    .where('name', 'in', [...names])
    .execute();
  return new Map(rows.map((r) => [r.name, r.type]));
}

/** Records a report on the environment: when it came, whether it changed what runs, and the compliance state. */
export async function recordReport(db: Db, environmentId: number, report: { at: number; changed: boolean; state: boolean }): Promise<void> {
  await db
    .updateTable('environments')
    .set({
      last_reported_at: report.at,
      state: report.state ? 1 : 0,
      // A new snapshot changes what the environment is; an identical report only says it was seen.
      ...(report.changed ? { last_changed_at: report.at, last_modified_at: report.at } : {}),
    })
    .where('id', '=', environmentId)
    .execute();
}

/** An environment with what runs in it now (its latest snapshot; none before its first report). */
export interface EnvironmentNow {
  name: string;
  type: string;
  /** null before the first report. */
  state: boolean | null;
  lastReportedAt: number | null;
  lastChangedAt: number | null;
  snapshotIndex: number | null;
  artifacts: RunningArtifact[];
}

/** Environments as `e`, each joined to its latest snapshot as `s` (nulls before the first report): one probe of the snapshots' key per environment. */
export const withLatestSnapshot = (db: Db) =>
  db.selectFrom('environments as e').leftJoin('snapshots as s', (join) =>
    join.onRef('s.environment_id', '=', 'e.id').on('s.snapshot_index', '=', (eb) =>
      eb
        .selectFrom('snapshots as l')
        .select((x) => x.fn.max('l.snapshot_index').as('m'))
        .whereRef('l.environment_id', '=', 'e.id'),
    ),
  );

/** A page of an organisation's environments by name, each with its latest snapshot. */
export async function environmentsNow(db: Db, organizationId: number, offset: number, limit: number): Promise<{ items: EnvironmentNow[]; total: number }> {
  const { total } = await db
    .selectFrom('environments')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  const rows = await withLatestSnapshot(db)
    .select(['e.name', 'e.type', 'e.state', 'e.last_reported_at', 'e.last_changed_at', 's.snapshot_index', 's.artifacts'])
    .where('e.organization_id', '=', organizationId)
    .orderBy('e.name')
    .limit(limit)
    .offset(offset)
    .execute();
  return {
    total: Number(total),
    items: rows.map((r) => ({
      name: r.name,
      type: r.type,
      state: r.state === null ? null : Number(r.state) === 1,
      lastReportedAt: r.last_reported_at === null ? null : Number(r.last_reported_at),
      lastChangedAt: r.last_changed_at === null ? null : Number(r.last_changed_at),
      snapshotIndex: r.snapshot_index === null ? null : Number(r.snapshot_index),
      artifacts: fromJson<RunningArtifact[]>(r.artifacts, []),
    })),
  };
}

export const reads = { findEnvironment, typesOfEnvironments, environmentsNow };
export const writes = { upsertEnvironment, recordReport };
