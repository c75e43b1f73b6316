/** What every migration file shares: the builder's shape and the column types per dialect. */
import type { Kysely } from 'kysely';

/** The databases migrations are written for; kept here, not imported, as migrations import no live code. */
type DialectName = 'sqlite' | 'postgres';

/** One migration: applies its change to `db`, in the statements of `dialect`. */
export type Builder = (db: Kysely<unknown>, dialect: DialectName) => Promise<void>;

/** Column types, chosen per dialect only where SQLite and PostgreSQL disagree (ids, blobs, floats). */
export const types = (dialect: DialectName) => ({
  id: dialect === 'postgres' ? ('bigserial' as const) : ('integer' as const),
  ref: dialect === 'postgres' ? ('bigint' as const) : ('integer' as const),
  time: dialect === 'postgres' ? ('double precision' as const) : ('real' as const),
  bytes: dialect === 'postgres' ? ('bytea' as const) : ('blob' as const),
});

/** Evidence tables: rows are written once and never changed or removed. */
export const appendOnlyTables = ['attestations', 'snapshots', 'deployments', 'approvals', 'reviews', 'blobs', 'evidence_log'] as const;
