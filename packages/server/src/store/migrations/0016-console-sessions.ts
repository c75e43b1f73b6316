import { type Builder, types } from './builder.ts';

/**
 * Console sessions: a person signed in with a token. Only the SHA-256 of the session id is kept
 * (the id itself lives in the browser's cookie), with the token it was opened with, so that a
 * revoked or expired token ends its sessions, and when the session itself ends.
 *
 * And an index of deployments by fingerprint, for the console's trail page (where each artifact
 * of the trail was deployed), which otherwise scanned the organisation's deployments.
 */
export const m016_console_sessions: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema
    .createTable('console_sessions')
    .addColumn('id_sha256', 'text', (c) => c.primaryKey())
    .addColumn('token_id', 'text', (c) => c.notNull().references('tokens.id'))
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_expiry').on('console_sessions').column('expires_at').execute();
  await db.schema.createIndex('deployments_org_fingerprint').on('deployments').columns(['organization_id', 'fingerprint', 'id']).execute();
};
