/** The organisation's log as the store keeps it (the audit export's store part), read for an export. */
import type { StoreUses } from '../store/types.ts';
import type { AuditLog } from './export-package.ts';

/** The queries `storeAuditLog` uses, for a plugin's `store` list. */
export const storeAuditLogUses = ['latestCheckpoint', 'logLeaves', 'inclusionProofOf', 'logIndexesOf'] as const;
type LogStore = StoreUses<typeof storeAuditLogUses>;

/**
 * The log of organisation `organizationId` up to its latest signed checkpoint, with `verifierKey`
 * as the package's key file; undefined when no checkpoint has been signed yet.
 */
export async function storeAuditLog(store: LogStore, organizationId: number, verifierKey: string): Promise<AuditLog | undefined> {
  const checkpoint = await store.latestCheckpoint(organizationId);
  if (!checkpoint) return undefined;
  return {
    checkpoint: checkpoint.note,
    verifierKey,
    leaves: (from, limit) => store.logLeaves(organizationId, from, limit),
    inclusionProof: (index, size) => store.inclusionProofOf(organizationId, index, size),
    latestBegins: (ids) => store.logIndexesOf(organizationId, 'trails', ids),
  };
}
