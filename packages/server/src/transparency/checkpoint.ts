import { check } from './errors.ts';
import { decodeHash, toBase64 } from './encoding.ts';
import { HASH_SIZE, type Hash } from './hashing.ts';
import type { NoteSigner, NoteVerifier } from './note-keys.ts';
import { openNote, signNote, type ParsedNote } from './signed-note.ts';

/** The body of a C2SP tlog-checkpoint: the log's origin, its size and its root hash. */
export interface Checkpoint {
  /** The log's unique name, e.g. `trailproof.example.com/acme`. */
  readonly origin: string;
  /** The number of leaves. */
  readonly size: number;
  /** The RFC 9162 root hash of the tree of `size` leaves. */
  readonly rootHash: Hash;
  /** Optional lines after the root hash (none are defined; kept for forward compatibility). */
  readonly extensions?: readonly string[];
}

/** A checkpoint opened from a signed note whose signature was verified. */
export interface SignedCheckpoint {
  readonly checkpoint: Checkpoint;
  readonly note: ParsedNote;
}

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

/** The checkpoint's text: origin, decimal size, base64 root hash, extension lines; each ends in "\n". */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  const { origin, size, rootHash, extensions = [] } = checkpoint;
  check(isLine(origin), 'malformed-checkpoint', 'the origin is one non-empty line');
  check(Number.isSafeInteger(size) && size >= 0, 'malformed-checkpoint', 'the tree size is a whole number');
  check(rootHash.length === HASH_SIZE, 'malformed-checkpoint', `the root hash is ${HASH_SIZE} bytes`);
  check(extensions.every(isLine), 'malformed-checkpoint', 'each extension is one non-empty line');
  return [origin, String(size), toBase64(rootHash), ...extensions].map((line) => `${line}\n`).join('');
}

/**
 * Reads a checkpoint's text. Strict: the size in canonical decimal (no sign, no leading zero,
 * below 2^53), the root hash in canonical base64 of 32 bytes, no empty line, a final newline.
 * Throws a VerificationError ('malformed-checkpoint') naming the line at fault.
 */
export function parseCheckpoint(text: string): Checkpoint {
  check(text.endsWith('\n'), 'malformed-checkpoint', 'a checkpoint ends with a newline');
  const lines = text.slice(0, -1).split('\n');
  check(lines.length >= 3, 'malformed-checkpoint', 'a checkpoint has an origin, a size and a root hash line');
  const [origin, sizeLine, rootLine, ...extensions] = lines as [string, string, string, ...string[]];
  check(origin.length > 0, 'malformed-checkpoint', 'the origin line is empty');
  check(
    DECIMAL.test(sizeLine) && Number.isSafeInteger(Number(sizeLine)),
    'malformed-checkpoint',
    `the size line ${JSON.stringify(sizeLine)} is not a canonical decimal number`,
  );
  const rootHash = decodeHash(rootLine, 'malformed-checkpoint', 'the root hash line');
  check(
    extensions.every((line) => line.length > 0),
    'malformed-checkpoint',
    'a checkpoint has no empty line',
  );
  return { origin, size: Number(sizeLine), rootHash, extensions };
}

/** Signs the checkpoint with `signer`: the C2SP signed note of its text. */
export function signCheckpoint(checkpoint: Checkpoint, signer: NoteSigner): string {
  return signNote(formatCheckpoint(checkpoint), signer);
}

/**
 * Opens a signed checkpoint: the note's signature by `verifier`, then its text as a checkpoint,
 * then its origin when `origin` is given. Throws a VerificationError naming what failed.
 */
export function openCheckpoint(signedNote: string | Uint8Array, verifier: NoteVerifier, origin?: string): SignedCheckpoint {
  const note = openNote(signedNote, verifier);
  const checkpoint = parseCheckpoint(note.text);
  check(
    origin === undefined || checkpoint.origin === origin,
    'origin-mismatch',
    `the checkpoint is of ${JSON.stringify(checkpoint.origin)}, not ${JSON.stringify(origin)}`,
  );
  return { checkpoint, note };
}

function isLine(value: string): boolean {
  return typeof value === 'string' && value.length > 0 && !value.includes('\n');
}
