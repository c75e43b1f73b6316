import type { Builder } from './builder.ts';

/**
 * Which token stored each approval, review and snapshot, as 0014 did for trails and attestations:
 * `created_by_token` holds the token's public id (never its secret), null for rows stored before
 * this migration. Part of the row's digest in the hash chain whenever it is set (chain.ts).
 */
export const m015_approval_snapshot_provenance: Builder = async (db) => {
  for (const table of ['approvals', 'reviews', 'snapshots']) await db.schema.alterTable(table).addColumn('created_by_token', 'text').execute();
};
