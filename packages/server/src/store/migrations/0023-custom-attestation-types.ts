import { type Builder, types } from './builder.ts';

/**
 * Custom attestation types (`kosli create attestation-type`): one row per type and organisation,
 * and one per version, never changed once written, so that the version an attestation names is
 * the one that judged it. An attestation records its version's SHA-256 in its own chained data,
 * so a version altered behind the server's back no longer matches what its attestations say.
 */
export const m023_custom_attestation_types: Builder = async (db, dialect) => {
  const t = types(dialect);
  await db.schema
    .createTable('custom_attestation_types')
    .addColumn('id', t.id, (c) => c.primaryKey().notNull())
    .addColumn('organization_id', t.ref, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by_token', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('last_modified_at', t.time, (c) => c.notNull())
    .addUniqueConstraint('custom_attestation_types_org_name', ['organization_id', 'name'])
    .execute();
  await db.schema
    .createTable('custom_attestation_type_versions')
    .addColumn('type_id', t.ref, (c) => c.notNull().references('custom_attestation_types.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type_schema', 'text')
    .addColumn('evaluator', 'text')
    .addColumn('summary', 'text')
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('created_by_token', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('custom_attestation_type_versions_pk', ['type_id', 'version'])
    .execute();
};
