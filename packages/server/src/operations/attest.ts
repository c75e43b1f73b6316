/** Storing an attestation: the one way every attestation plugin (ours or a third party's) records evidence. */
import type { UploadedFile } from '../plugin.ts';
import { blobAddress, type Store } from '../store/index.ts';
import { requireTrail } from './lookup.ts';

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
  now: number;
}

/**
 * Stores an attestation on an existing trail (404 telling to begin it first otherwise), its
 * attachment content-addressed, and its hash-chain record, all in one transaction.
 */
export async function storeAttestation(store: Store, a: AttestationToStore): Promise<void> {
  const { organization, trail } = await requireTrail(store, a.org, a.flow, a.trail);
  // Hashed before the transaction: on SQLite every transaction waits for the one writer.
  const attachmentSha256 = a.attachment ? blobAddress(a.attachment.buffer) : null;
  await store.transaction(async (tx) => {
    if (a.attachment) await tx.putBlob(a.attachment.buffer, a.now, attachmentSha256!);
    await tx.insertAttestation({
      trailId: trail.id, name: a.name, type: a.type, data: a.data, artifactFingerprint: a.data.artifact_fingerprint ?? null,
      attachmentSha256, attachmentName: a.attachment?.originalName ?? null, compliant: a.compliant, at: a.now,
      where: { organizationId: organization.id, flow: trail.flowName, trail: trail.name },
    });
  });
}
