/** Transactions the queries share, whatever the engine. */
import type { Db, DialectName } from './database.ts';

/**
 * Runs `work` in the caller's transaction, or in a new one when there is none, so that a piece
 * of evidence and its chain record always commit together.
 */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/**
 * Locks a row until the transaction ends, so that concurrent writers that number things under
 * it (snapshots of an environment, approvals of a flow, an override's check of a trail) take turns. PostgreSQL needs it: two
 * transactions could otherwise read the same max() and one would fail on the unique constraint.
 * SQLite needs nothing: Kysely's SQLite driver runs one transaction at a time on its single
 * connection, and SQLite itself admits one writer per file.
 */
export async function lockForUpdate(db: Db, dialect: DialectName, table: 'environments' | 'flows' | 'approvals' | 'trails', id: number): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom(table).select('id').where('id', '=', id).forUpdate().execute();
}

export const writes = { lockForUpdate };
