import type { Builder } from './builder.ts';

/**
 * Which token stored each trail and attestation: `created_by_token` holds the token's public id
 * (never its secret), null for rows stored before this migration. It is part of the row's digest
 * in the hash chain whenever it is set (chain.ts), so it cannot be changed or removed unnoticed.
 */
export const m014_evidence_provenance: Builder = async (db) => {
  for (const table of ['trails', 'attestations']) await db.schema.alterTable(table).addColumn('created_by_token', 'text').execute();
};
