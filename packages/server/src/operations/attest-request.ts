/** What every attestation plugin takes from its request as it is, for `storeAttestation`. */
import type { UploadedFile } from '../plugin.ts';
import type { AttestationToStore } from './attest.ts';

interface AttestRequest {
  params: { org: string; flow_name: string; trail_name: string };
  data: { attestation_name: string };
  files: Partial<Record<string, UploadedFile>>;
  principal: { tokenId: string };
  now: number;
}

/** The trail, name, attachment, caller and time of the attestation a request sends. */
export const attestedBy = (r: AttestRequest): Omit<AttestationToStore, 'type' | 'data' | 'compliant'> => ({
  org: r.params.org,
  flow: r.params.flow_name,
  trail: r.params.trail_name,
  name: r.data.attestation_name,
  attachment: r.files.attachment_file,
  createdBy: r.principal.tokenId,
  now: r.now,
});
