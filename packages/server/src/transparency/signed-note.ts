import { sign, verify } from 'node:crypto';
import { check, VerificationError } from './errors.ts';
import { fromCanonicalBase64, toBase64 } from './encoding.ts';
import { isValidKeyName, type NoteSigner, type NoteVerifier } from './note-keys.ts';

/** More signature lines than this make a note malformed (as in Go's note package). */
export const MAX_NOTE_SIGNATURES = 100;

/** One signature line of a note: `— name base64(key hash ‖ signature)`. */
export interface NoteSignature {
  readonly name: string;
  readonly keyHash: number;
  /** The signature bytes, without the 4-byte key hash. */
  readonly signature: Buffer;
}

/** A note's text (ending in a newline) and all its signature lines, verified or not. */
export interface ParsedNote {
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

const SIGNATURE_PREFIX = '\u2014 '; // EM DASH, then a space
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Signs `text` (UTF-8 without control characters but newlines, ending in a newline) with `signer`
 * and returns the signed note: the text, a blank line, one signature line.
 */
export function signNote(text: string, signer: NoteSigner): string {
  checkText(text);
  check(text.endsWith('\n'), 'malformed-note', "a note's text ends with a newline");
  const hash = Buffer.alloc(4);
  hash.writeUInt32BE(signer.keyHash);
  const signature = sign(null, Buffer.from(text, 'utf8'), signer.privateKey);
  return `${text}\n${SIGNATURE_PREFIX}${signer.name} ${toBase64(Buffer.concat([hash, signature]))}\n`;
}

/**
 * Parses a signed note without checking any signature: well-formed UTF-8 without control
 * characters but newlines, the text, a blank line, then only signature lines, each ending in a
 * newline. Throws a VerificationError ('malformed-note') otherwise.
 */
export function parseNote(message: string | Uint8Array): ParsedNote {
  const note = typeof message === 'string' ? message : decodeUtf8(message);
  checkText(note);
  const split = note.lastIndexOf('\n\n');
  check(split >= 0, 'malformed-note', 'a signed note has a blank line before its signatures');
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  check(block.length > 0 && block.endsWith('\n'), 'malformed-note', "a signed note's signature lines each end with a newline");
  const lines = block.slice(0, -1).split('\n');
  check(lines.length <= MAX_NOTE_SIGNATURES, 'malformed-note', `a signed note has at most ${MAX_NOTE_SIGNATURES} signatures`);
  return { text, signatures: lines.map(parseSignatureLine) };
}

/**
 * Opens a signed note with one verifier key: the note must be well formed and carry a valid
 * signature by that key (name and key hash). Signatures by other keys (witnesses' cosignatures)
 * are kept in the result unverified. Throws a VerificationError naming what failed.
 */
export function openNote(message: string | Uint8Array, verifier: NoteVerifier): ParsedNote {
  const note = parseNote(message);
  const ours = note.signatures.filter((s) => s.name === verifier.name && s.keyHash === verifier.keyHash);
  check(ours.length > 0, 'no-signature-by-key', `the note has no signature by the key ${verifier.name}+${verifier.keyHash.toString(16).padStart(8, '0')}`);
  const text = Buffer.from(note.text, 'utf8');
  for (const { signature } of ours) {
    check(verifyEd25519(text, verifier, signature), 'bad-signature', `the signature by ${verifier.name} does not verify`);
  }
  return note;
}

function parseSignatureLine(line: string): NoteSignature {
  check(line.startsWith(SIGNATURE_PREFIX), 'malformed-note', 'each line after the blank line is a signature line "— name signature"');
  const rest = line.slice(SIGNATURE_PREFIX.length);
  const space = rest.indexOf(' ');
  const name = space < 0 ? rest : rest.slice(0, space);
  const bytes = space < 0 ? undefined : fromCanonicalBase64(rest.slice(space + 1));
  check(isValidKeyName(name) && bytes !== undefined && bytes.length >= 5, 'malformed-note', 'a signature line is "— name base64(key hash ‖ signature)"');
  return { name, keyHash: bytes.readUInt32BE(0), signature: bytes.subarray(4) };
}

function verifyEd25519(text: Buffer, verifier: NoteVerifier, signature: Buffer): boolean {
  try {
    return signature.length === 64 && verify(null, text, verifier.publicKey, signature);
  } catch {
    return false;
  }
}

// Go's note format: well-formed UTF-8, and no ASCII control character other than a newline.
function checkText(text: string): void {
  check(!/[\u0000-\u0009\u000b-\u001f\p{Cs}]/u.test(text), 'malformed-note', 'a note is UTF-8 text without control characters other than newlines');
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new VerificationError('malformed-note', 'a note is UTF-8 text');
  }
}
