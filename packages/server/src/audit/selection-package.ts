/** The audit package of a selection, as a stream to answer a request with (the API's export, the console's download). */
import { PassThrough } from 'node:stream';
import { notFound } from '../http/errors.ts';
import type { StoreUses } from '../store/types.ts';
import { exportPackage, exportPackageUses, type ExportOptions } from './export-package.ts';
import { requireSelection, requireSelectionUses } from './export-selection.ts';
import { storeAuditLog, storeAuditLogUses } from './store-log.ts';

/** The queries `selectionPackage` uses, for a plugin's `store` list. */
export const selectionPackageUses = [...requireSelectionUses, ...storeAuditLogUses, ...exportPackageUses] as const;

/**
 * The package of `options.selection`, written while it is read: a 404 first for a flow or trail
 * the organisation does not have, or for a log not signed yet. A failure midway destroys the
 * stream (the gzip is cut, and the package does not verify) instead of rejecting unheard.
 */
export async function selectionPackage(store: StoreUses<typeof selectionPackageUses>, verifierKey: string, options: ExportOptions): Promise<PassThrough> {
  await requireSelection(store, options.organization, options.organizationId, options.selection);
  const log = await storeAuditLog(store, options.organizationId, verifierKey);
  if (!log) throw notFound(`The log of '${options.organization}' has no signed checkpoint yet: try again in a second`);
  // Parts not given are dropped, not kept as keys whose value is undefined.
  const selection = JSON.parse(JSON.stringify(options.selection));
  const stream = new PassThrough();
  exportPackage(store, log, stream, { ...options, selection }).catch((error: Error) => stream.destroy(error));
  return stream;
}
