/** The organisation's log as the store keeps it (issue 34's store part), read for an export. */
import type { Store } from '../store/index.ts';
import type { AuditLog } from './export-package.ts';

type LogStore = Pick<Store, 'latestCheckpoint' | 'logLeaves' | 'inclusionProofOf' | 'logIndexesOf'>;

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
