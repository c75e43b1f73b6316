import { downloadAttachment, limits } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { blobAddress } from '../store/queries/blobs.ts';
import { requireTrail, requireTrailUses } from './lookup.ts';

/**
 * `attachment; filename=...` (RFC 6266) with a plain ASCII fallback and the name in RFC 5987
 * form. Names stored before uploads were capped can be longer: both are cut to
 * `limits.fileNameBytes`, so the header stays under 1 KB (proxies' header buffers are 4-8 KB).
 */
export const contentDisposition = (stored: string) => {
  const name = truncateUtf8(stored, limits.fileNameBytes);
  // '%' too: some clients decode %XX in the plain parameter.
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'attachment';
  // RFC 5987 attr-char leaves out ' ( ) * as well, which encodeURIComponent keeps.
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
};

/** The longest start of `text` of at most `maxBytes` UTF-8 bytes, cut between characters. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/** GET .../attestations/{attestation_id}/attachment: the bytes exactly as uploaded, with their SHA-256. */
export const downloadAttachmentPlugin = definePlugin({
  operation: downloadAttachment,
  store: [...requireTrailUses, 'attachmentOf', 'getBlob'],
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
