/** Storing an attestation: the one way every attestation plugin (ours or a third party's) records evidence. */
import type { UploadedFile } from '../plugin.ts';
import type { StoreUses } from '../store/types.ts';
import { requireOrganization, requireOrganizationUses, trailNotFound } from './lookup.ts';

/** The queries `storeAttestation` uses, for a plugin's `store` list. */
export const storeAttestationUses = [...requireOrganizationUses, 'appendAttestation'] as const;

export interface AttestationToStore {
  org: string;
  flow: string;
  trail: string;
  /** Attestation name; a later one with the same name supersedes it for compliance. */
  name: string;
  /** Attestation type (`junit`, `generic`, ...). */
  type: string;
  /** The validated input, stored as it was sent. */
  data: { artifact_fingerprint?: string | null };
  attachment?: UploadedFile;
  compliant: boolean;
  /** The id of the caller's token (the handler's `principal.tokenId`): kept as who stored it. */
  createdBy: string;
  now: number;
}

/**
 * Stores an attestation on an existing trail (404 telling to begin it first otherwise), its
 * attachment content-addressed, and its hash-chain record, all in one transaction.
 */
export async function storeAttestation(store: StoreUses<typeof storeAttestationUses>, a: AttestationToStore): Promise<void> {
  const organization = await requireOrganization(store, a.org);
  const stored = await store.appendAttestation({
    organizationId: organization.id,
    flow: a.flow,
    trail: a.trail,
    name: a.name,
    type: a.type,
    dataJson: JSON.stringify(a.data),
    artifactFingerprint: a.data.artifact_fingerprint ?? null,
    compliant: a.compliant,
    createdBy: a.createdBy,
    at: a.now,
    attachment: a.attachment ? { content: a.attachment.buffer, name: a.attachment.originalName } : null,
  });
  if ('missing' in stored) throw trailNotFound(a.org, a.flow, a.trail, stored.missing);
}
