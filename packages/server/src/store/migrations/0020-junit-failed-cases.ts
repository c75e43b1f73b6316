import { type Builder, types } from './builder.ts';

/**
 * The failed test cases the console's trail page shows for a JUnit report, read from the report
 * once (off the event loop, bounded) and kept here by the report's address, so that a page view
 * reads a row instead of the report. `reader_version` names the reader that wrote the row: a row
 * of another version is read again. Derived from the blob, not evidence: not chained.
 */
export const m020_junit_failed_cases: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema
    .createTable('junit_failed_cases')
    .addColumn('blob_sha256', 'text', (c) => c.primaryKey().references('blobs.sha256'))
    .addColumn('reader_version', 'integer', (c) => c.notNull())
    .addColumn('failed_cases', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
};
