/** The failed cases of JUnit reports as the console read them once (migration 0020), by the report's address. */
import type { Db } from '../database.ts';

/** The table of migration 0020. */
interface JunitFailedCasesTable {
  blob_sha256: string;
  reader_version: number;
  /** What the reader made of the report, as JSON. */
  failed_cases: string;
  created_at: number;
}

const withFailedCases = (db: Db) => db.withTables<{ junit_failed_cases: JunitFailedCasesTable }>();

/** The kept reading (JSON text) of each of `sha256s` that `readerVersion` wrote; a report not read yet, or by another version, is absent. */
export async function keptFailedCases(db: Db, sha256s: readonly string[], readerVersion: number): Promise<Map<string, string>> {
  if (!sha256s.length) return new Map();
  const rows = await withFailedCases(db)
    .selectFrom('junit_failed_cases')
    .select(['blob_sha256', 'failed_cases'])
    .where('blob_sha256', 'in', sha256s)
    .where('reader_version', '=', readerVersion)
    .execute();
  return new Map(rows.map((r) => [r.blob_sha256, r.failed_cases]));
}

/** Keeps the reading of one report, replacing one another version wrote. */
export async function keepFailedCases(db: Db, row: { sha256: string; readerVersion: number; failedCases: string; at: number }): Promise<void> {
  await withFailedCases(db)
    .insertInto('junit_failed_cases')
    .values({ blob_sha256: row.sha256, reader_version: row.readerVersion, failed_cases: row.failedCases, created_at: row.at })
    .onConflict((c) => c.column('blob_sha256').doUpdateSet({ reader_version: row.readerVersion, failed_cases: row.failedCases, created_at: row.at }))
    .execute();
}

export const reads = { keptFailedCases };
export const writes = { keepFailedCases };
