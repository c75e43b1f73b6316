import { ApiError, badRequest, notFound } from '../http/errors.ts';
import type { StoreUses } from '../store/types.ts';
import { requireOrganization, requireOrganizationUses } from './lookup.ts';

/** What `requireLog` uses of the store, for a plugin's `store` list. */
export const requireLogUses = [...requireOrganizationUses, 'logSigning', 'logSize'] as const;

/**
 * The organisation of a log operation, its tree's size and the store's signing key and origin;
 * with `leaves`, a 404 when nothing is logged yet (no tree to prove anything in).
 */
export async function requireLog(store: StoreUses<typeof requireLogUses>, org: string, options: { leaves?: boolean } = {}) {
  const organization = await requireOrganization(store, org);
  // Stores opened to read only (trailproof verify) have no signer: a server's always has one.
  if (!store.logSigning) throw new ApiError(503, 'This server does not sign its log');
  const size = await store.logSize(organization.id);
  if (options.leaves && size === 0) throw notFound(`The log of '${org}' has no leaves yet: evidence is logged as it is stored`);
  return { organization, size, signing: store.logSigning };
}

/** A 400 naming `field` unless `value` is at most the log's size. */
export function withinLog(field: string, value: number, size: number): void {
  if (value > size)
    throw badRequest(`${field} ${value} is beyond the log, which has ${size} leaves`, { [`query.${field}`]: `must be at most ${size}, the log's size` });
}
