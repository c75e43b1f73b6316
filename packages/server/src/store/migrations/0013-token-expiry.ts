import { type Builder, types } from './builder.ts';

/**
 * Tokens may expire: `expires_at` (Unix seconds), null for a token that does not (every token
 * made before this migration). An expired token is refused like a revoked one.
 */
export const m013_token_expiry: Builder = async (db, dialect) => {
  await db.schema.alterTable('tokens').addColumn('expires_at', types(dialect).time).execute();
};
