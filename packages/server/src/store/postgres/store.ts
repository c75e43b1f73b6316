/**
 * The store on PostgreSQL: the queries on a pool, attestations written in batches, tokens
 * remembered until the database says they changed, and a health check on a connection of its own.
 */
import { batchedWrites } from '../batched-writes.ts';
import { checkDatabase } from '../queries/health.ts';
import { appendArtifacts } from '../queries/artifacts.ts';
import { appendAttestations } from '../queries/attestations.ts';
import { assembleStore, baseStore, migrated, once } from '../registry.ts';
import { writeBatchListeners } from '../write-batches.ts';
import { rememberTokensUntilChange } from '../remembered.ts';
import type { Store } from '../types.ts';
import { openPostgres, type PostgresOptions } from './open.ts';
import { listenForTokenChanges } from './token-changes.ts';
import { startLog, type LogOptions } from '../log-store.ts';

/** Connects to PostgreSQL (`postgres://...`), applies pending migrations and returns the store. */
export async function openPostgresStore(url: string, options: PostgresOptions & { log?: LogOptions } = {}): Promise<Store> {
  const { db, pool } = openPostgres(url, options);
  if (options.schema)
    await pool.query(`create schema if not exists "${options.schema.replace(/"/g, '""')}"`).catch(async (error) => {
      await db.destroy();
      throw error;
    });
  await migrated(db, 'postgres', options.schema);
  // Checkpoints are signed after the commits that may have grown a tree (log-store.ts).
  const log = await startLog(db, options.log);
  const base = baseStore(db, 'postgres', {
    runTransaction: async (work) => {
      const result = await db.transaction().execute(work);
      log.changed();
      return result;
    },
  });
  // The health check has a connection of its own (opened on its first check): with every
  // connection of the pool busy, a busy process is not a dead one, and a load balancer that
  // took it for one would move its load onto the others.
  const health = openPostgres(url, { ...options, maxConnections: 1, applicationName: 'trailproof health check' }).db;
  // Attestations arriving together share a transaction and one chain append (see batchedWrites).
  const batches = writeBatchListeners();
  const attestationBatches = batches.emitter('attestations');
  const attestations = batchedWrites(db, appendAttestations, { afterCommit: (batch) => (log.changed(), attestationBatches(batch)) });
  // Artifacts the same way: one transaction, one lock of the chain and one chain append for those arriving together.
  const artifactBatches = batches.emitter('artifacts');
  const artifacts = batchedWrites(db, appendArtifacts, { afterCommit: (batch) => (log.changed(), artifactBatches(batch)) });
  // Tokens are remembered until PostgreSQL says the tokens table changed (token-changes.ts).
  const tokenChanges = listenForTokenChanges(url, { connectionTimeoutMs: options.connectionTimeoutMs });
  const thenForget =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A) => {
      try {
        return await write(...args);
      } finally {
        tokenChanges.changed();
      }
    };
  /** What PostgreSQL runs its own way; every other member is the base's query on the pool (registry.ts). */
  const overrides = {
    appendAttestation: attestations.write,
    appendArtifact: artifacts.write,
    findToken: rememberTokensUntilChange(base.findToken, tokenChanges.version),
    // This process's own changes apply to its next request without waiting for the notification.
    insertToken: thenForget(base.insertToken),
    revokeToken: thenForget(base.revokeToken),
    onWriteBatch: batches.subscribe,
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max }),
    logSigning: log.logSigning,
    makeCheckpoints: log.makeCheckpoints,
    checkDatabase: () => checkDatabase(health),
    close: once(async () => {
      await tokenChanges.close();
      await attestations.drained();
      await log.close();
      await health.destroy();
      await base.close();
    }),
  } satisfies Partial<Store>;
  return assembleStore(base, overrides);
}
