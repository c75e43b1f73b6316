import { type Builder, types } from './builder.ts';

/**
 * Console sessions of people signed in through an OpenID provider: the SHA-256 of the session id,
 * the identity the provider vouched for (issuer and subject, with the e-mail shown on pages and
 * recorded on reviews), the role its claims gave in the organisation, and when the session ends.
 * The index by identity lets a later sign-in end the sessions its claims no longer grant.
 */
export const m028_console_identities: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema
    .createTable('console_identity_sessions')
    .addColumn('id_sha256', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('expires_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_identity_sessions_identity').on('console_identity_sessions').columns(['issuer', 'subject']).execute();
  await db.schema.createIndex('console_identity_sessions_expiry').on('console_identity_sessions').column('expires_at').execute();
};
