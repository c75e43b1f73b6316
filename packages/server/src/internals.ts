/**
 * `@trailproof/server/internals`: pieces of the store re-exported for this repository's
 * benchmarks (bench/support/floor-write.ts measures the storage floor with the server's own code,
 * not a copy). Not a public API: it follows the server's code and may change in any release.
 */
export { startCheckpointer, walAutocheckpoint } from './store/sqlite/checkpoint.ts';
export { batchedWrites } from './store/batched-writes.ts';
export { migrate } from './store/migrations.ts';
export { blobAddress, putBlobs } from './store/queries/blobs.ts';
export { openPostgres } from './store/postgres/open.ts';
export { newDatabasePageSize } from './store/sqlite/open.ts';
