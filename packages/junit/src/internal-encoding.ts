/**
 * Encoding detection for the JUnit reader: sniff the first bytes (byte order mark, UTF-16 without
 * BOM, the XML declaration's `encoding`) and pick a streaming `TextDecoder`.
 */

/** Bytes to look at for the XML declaration before giving up on finding one. */
export const SNIFF_BYTES = 1024;

/** Encoding labels that `TextDecoder` (WHATWG) does not know, mapped to ones it does. */
const ALIASES = new Map([
  ['latin9', 'iso-8859-15'],
  ['latin-9', 'iso-8859-15'],
  ['iso-latin-9', 'iso-8859-15'],
  ['iso8859_15', 'iso-8859-15'],
  ['latin-1', 'iso-8859-1'],
  ['iso-latin-1', 'iso-8859-1'],
  ['iso8859_1', 'iso-8859-1'],
  ['cp1252', 'windows-1252'],
  ['windows1252', 'windows-1252'],
]);

export type SniffResult =
  /** Decode with this `TextDecoder` label (the decoder itself drops a UTF-8/UTF-16 BOM). */
  | { kind: 'decode'; encoding: string }
  /** Read more bytes first: the head is too short to decide. */
  | { kind: 'need-more' }
  /** Not decodable: `reason` says why. */
  | { kind: 'unsupported'; reason: string };

/** Declared encoding names seen so far, lower-cased, with their label (a few per build). */
const labels = new Map<string, string | null>();
const MAX_LABELS = 64;

/** Normalises a declared encoding name to a `TextDecoder` label, or null where unknown. */
export function decoderLabel(declared: string): string | null {
  const lower = declared.trim().toLowerCase();
  let label = labels.get(lower);
  if (label !== undefined) return label;
  try {
    // Building a TextDecoder is the only way to ask for a label, and costs more than reading a
    // small report: done once per name (the cache is bounded, names come from the files).
    label = new TextDecoder(ALIASES.get(lower) ?? lower).encoding;
  } catch {
    label = null;
  }
  if (labels.size < MAX_LABELS) labels.set(lower, label);
  return label;
}

/**
 * Decides the encoding from the first bytes of a document. `complete` is true when `head` holds
 * the whole document (so a short head is final).
 *
 * Order: a byte order mark wins (UTF-8 EF BB BF, UTF-16 BE FE FF, UTF-16 LE FF FE; UTF-32 BOMs are
 * refused); then UTF-16 without BOM recognised by "<?" encoded as 16-bit units; then the XML
 * declaration's `encoding` pseudo-attribute; then UTF-8. A declaration naming UTF-16 in a
 * document whose bytes are not 16-bit is read as UTF-8 (the bytes cannot be UTF-16).
 */
export function sniffEncoding(head: Uint8Array, complete: boolean): SniffResult {
  if (head.length < 4 && !complete) return { kind: 'need-more' };
  const b0 = head[0],
    b1 = head[1],
    b2 = head[2],
    b3 = head[3];
  if ((b0 === 0x00 && b1 === 0x00 && b2 === 0xfe && b3 === 0xff) || (b0 === 0xff && b1 === 0xfe && b2 === 0x00 && b3 === 0x00)) {
    return { kind: 'unsupported', reason: 'UTF-32 is not supported' };
  }
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return { kind: 'decode', encoding: 'utf-8' };
  if (b0 === 0xfe && b1 === 0xff) return { kind: 'decode', encoding: 'utf-16be' };
  if (b0 === 0xff && b1 === 0xfe) return { kind: 'decode', encoding: 'utf-16le' };
  if (b0 === 0x3c && b1 === 0x00 && b2 === 0x3f && b3 === 0x00) return { kind: 'decode', encoding: 'utf-16le' };
  if (b0 === 0x00 && b1 === 0x3c && b2 === 0x00 && b3 === 0x3f) return { kind: 'decode', encoding: 'utf-16be' };
  if (b0 === 0x4c && b1 === 0x6f && b2 === 0xa7 && b3 === 0x94) return { kind: 'unsupported', reason: 'EBCDIC is not supported' };

  // ASCII-compatible: look for <?xml ... encoding="..." ?> in the first SNIFF_BYTES, read as
  // Latin-1 (one char per byte).
  const view = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, SNIFF_BYTES));
  const opening = view.toString('latin1', 0, 5);
  if (!complete && opening.length < 5 && '<?xml'.startsWith(opening)) return { kind: 'need-more' };
  if (opening !== '<?xml') return { kind: 'decode', encoding: 'utf-8' };
  const end = view.indexOf('?>');
  if (end < 0 && !complete && head.length < SNIFF_BYTES) return { kind: 'need-more' };
  const decl = view.toString('latin1', 0, end < 0 ? view.length : end);
  const m = /\sencoding\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(decl);
  const declared = m ? (m[1] ?? m[2] ?? '') : '';
  if (declared === '') return { kind: 'decode', encoding: 'utf-8' };
  const label = decoderLabel(declared);
  if (label === null) return { kind: 'unsupported', reason: `unsupported encoding "${declared}"` };
  if (label === 'utf-16le' || label === 'utf-16be') return { kind: 'decode', encoding: 'utf-8' };
  return { kind: 'decode', encoding: label };
}
