import { downloadAttachment } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { blobAddress } from '../store/index.ts';
import { requireTrail } from './lookup.ts';

/** `attachment; filename=...` with a plain ASCII fallback and the exact name in RFC 5987 form. */
const contentDisposition = (name: string) => {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'attachment';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
};

/** GET .../attestations/{attestation_id}/attachment: the bytes exactly as uploaded, with their SHA-256. */
export const downloadAttachmentPlugin = definePlugin({
  operation: downloadAttachment,
  async handler({ params, store }) {
    const { trail } = await requireTrail(store, params.org, params.flow_name, params.trail_name);
    // Looked up through the trail in the path, so an id from another trail or organisation finds nothing.
    const attachment = await store.attachmentOf(trail.id, params.attestation_id);
    if (!attachment) throw notFound(`Attestation ${params.attestation_id} not found in trail '${params.trail_name}'`);
    const blob = attachment.sha256 ? await store.getBlob(attachment.sha256) : undefined;
    if (!blob) throw notFound(`Attestation ${params.attestation_id} has no attachment`);
    // The header states what is sent, so it is computed from the bytes; a mismatch with the
    // address they are stored under means the stored evidence was altered, which is our fault.
    const sha256 = blobAddress(blob.content);
    if (sha256 !== blob.sha256) throw new Error(`blob ${blob.sha256} does not match its content (${sha256})`);
    return {
      status: 200,
      raw: blob.content,
      contentType: 'application/octet-stream',
      headers: {
        'X-Content-SHA256': blob.sha256,
        'Repr-Digest': `sha-256=:${Buffer.from(blob.sha256, 'hex').toString('base64')}:`,
        'Content-Disposition': contentDisposition(attachment.name ?? 'attachment'),
        // Evidence never changes under its id; a cache may keep it.
        'Cache-Control': 'private, max-age=31536000, immutable',
      },
    };
  },
});
