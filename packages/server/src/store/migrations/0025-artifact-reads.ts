import type { Builder } from './builder.ts';

/**
 * Indexes for reading artifacts: an organisation's artifacts newest first (`kosli list artifacts`
 * without a flow or repository), and the environment events of a fingerprint, from which an
 * artifact's running, exited and history are read, without scanning every environment's events.
 */
export const m025_artifact_reads: Builder = async (db) => {
  await db.schema.createIndex('artifacts_org_created').on('artifacts').columns(['organization_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('environment_events_fingerprint').on('environment_events').columns(['fingerprint', 'environment_id', 'id']).execute();
};
