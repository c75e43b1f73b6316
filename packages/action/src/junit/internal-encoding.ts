/**
 * Encoding detection for the JUnit reader: sniff the first bytes (byte order mark, UTF-16 without
 * BOM, the XML declaration's `encoding`) and pick a streaming `TextDecoder`.
 */

/** Bytes to look at for the XML declaration before giving up on finding one. */
export const SNIFF_BYTES = 1024;

/** Encoding labels that `TextDecoder` (WHATWG) does not know, mapped to ones it does. */
const ALIASES = new Map([
  ['latin9', 'iso-8859-15'], ['latin-9', 'iso-8859-15'], ['iso-latin-9', 'iso-8859-15'], ['iso8859_15', 'iso-8859-15'],
  ['latin-1', 'iso-8859-1'], ['iso-latin-1', 'iso-8859-1'], ['iso8859_1', 'iso-8859-1'],
  ['cp1252', 'windows-1252'], ['windows1252', 'windows-1252'],
]);

export type SniffResult =
  /** Decode with this `TextDecoder` label (the decoder itself drops a UTF-8/UTF-16 BOM). */
  | { kind: 'decode'; encoding: string }
  /** Read more bytes first: the head is too short to decide. */
  | { kind: 'need-more' }
  /** Not decodable: `reason` says why. */
  | { kind: 'unsupported'; reason: string };

function startsWith(head: Uint8Array, bytes: number[]): boolean {
  return head.length >= bytes.length && bytes.every((b, i) => head[i] === b);
}

/** `head` as Latin-1 text (one char per byte), to look for the XML declaration. */
function asciiView(head: Uint8Array): string {
  let s = '';
  for (let i = 0; i < head.length; i++) s += String.fromCharCode(head[i] ?? 0);
  return s;
}

/** Normalises a declared encoding name to a `TextDecoder` label, or null where unknown. */
export function decoderLabel(declared: string): string | null {
  const lower = declared.trim().toLowerCase();
  const label = ALIASES.get(lower) ?? lower;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
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
  if (startsWith(head, [0x00, 0x00, 0xfe, 0xff]) || startsWith(head, [0xff, 0xfe, 0x00, 0x00])) {
    return { kind: 'unsupported', reason: 'UTF-32 is not supported' };
  }
  if (startsWith(head, [0xef, 0xbb, 0xbf])) return { kind: 'decode', encoding: 'utf-8' };
  if (startsWith(head, [0xfe, 0xff])) return { kind: 'decode', encoding: 'utf-16be' };
  if (startsWith(head, [0xff, 0xfe])) return { kind: 'decode', encoding: 'utf-16le' };
  if (startsWith(head, [0x3c, 0x00, 0x3f, 0x00])) return { kind: 'decode', encoding: 'utf-16le' };
  if (startsWith(head, [0x00, 0x3c, 0x00, 0x3f])) return { kind: 'decode', encoding: 'utf-16be' };
  if (startsWith(head, [0x4c, 0x6f, 0xa7, 0x94])) return { kind: 'unsupported', reason: 'EBCDIC is not supported' };

  // ASCII-compatible: look for <?xml ... encoding="..." ?>.
  const text = asciiView(head.subarray(0, SNIFF_BYTES));
  if (!complete && text.length < 5 && '<?xml'.startsWith(text)) return { kind: 'need-more' };
  if (!text.startsWith('<?xml')) return { kind: 'decode', encoding: 'utf-8' };
  const end = text.indexOf('?>');
  if (end < 0 && !complete && head.length < SNIFF_BYTES) return { kind: 'need-more' };
  const decl = end < 0 ? text : text.slice(0, end);
  const m = /\sencoding\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(decl);
  const declared = m ? (m[1] ?? m[2] ?? '') : '';
  if (declared === '') return { kind: 'decode', encoding: 'utf-8' };
  const label = decoderLabel(declared);
  if (label === null) return { kind: 'unsupported', reason: `unsupported encoding "${declared}"` };
  if (label === 'utf-16le' || label === 'utf-16be') return { kind: 'decode', encoding: 'utf-8' };
  return { kind: 'decode', encoding: label };
}
