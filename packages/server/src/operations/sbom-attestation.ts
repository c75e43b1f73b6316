/**
 * Judging an `sbom` attestation (`kosli attest sbom`, CLI v2.41): the attachment is the SBOM as the
 * customer handed it (never compressed, cli#1162), so its SHA-256 must be the `original_fingerprint`
 * sent; the server reads the document itself and the attestation is compliant when what it reads
 * agrees with the format and package count the CLI summarised.
 */
import { createHash } from 'node:crypto';
import { readSbom, SbomBusyError } from '../domain/sbom/read-sbom.ts';
import { ApiError, badRequest } from '../http/errors.ts';
import type { UploadedFile } from '../plugin.ts';

interface SentSummary {
  format: string;
  original_fingerprint: string;
  document: { package_count: number } | null;
}

/** What the server read of the document and how it differs from the summary sent. */
export interface SbomVerification {
  read: boolean;
  format: string | null;
  package_count: number | null;
  /** Why the document was not read; null when it was. */
  reason: string | null;
  differences: string[];
}

export async function judgeSbom(sent: SentSummary, attachment: UploadedFile | undefined): Promise<{ compliant: boolean; verification: SbomVerification }> {
  if (!attachment) throw badRequest('An sbom attestation carries the SBOM file as attachment_file', { attachment_file: 'is required' });
  const sha256 = createHash('sha256').update(attachment.buffer).digest('hex');
  if (sha256 !== sent.original_fingerprint) {
    throw badRequest('original_fingerprint is not the SHA-256 of the SBOM file attached', {
      'attestation_data.original_fingerprint': `the file's is ${sha256}`,
    });
  }
  let reading: Awaited<ReturnType<typeof readSbom>>;
  try {
    reading = await readSbom(attachment.buffer);
  } catch (error) {
    if (error instanceof SbomBusyError) throw new ApiError(503, error.message, undefined, { 'Retry-After': '1' });
    throw error;
  }
  if (!reading.read) {
    const verification = {
      read: false,
      format: null,
      package_count: null,
      reason: reading.reason,
      differences: [`the document was not read: ${reading.reason}`],
    };
    return { compliant: false, verification };
  }
  const { format, document } = reading.summary;
  const differences: string[] = [];
  if (format !== sent.format) differences.push(`format: the document is ${format}, the summary says ${sent.format}`);
  if (document && sent.document && document.package_count !== sent.document.package_count) {
    differences.push(`package_count: the document lists ${document.package_count}, the summary says ${sent.document.package_count}`);
  }
  const verification = { read: true, format, package_count: document?.package_count ?? null, reason: null, differences };
  return { compliant: differences.length === 0, verification };
}
