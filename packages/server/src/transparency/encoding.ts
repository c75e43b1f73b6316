import { check, type VerificationReason } from './errors.ts';
import { HASH_SIZE, type Hash } from './hashing.ts';

/** No tree of fewer than 2^64 leaves has a proof of more hashes than this. */
export const MAX_PROOF_HASHES = 64;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 with padding (RFC 4648 section 4), the encoding of every hash we publish. */
export function toBase64(bytes: Uint8Array): string {
  // A Buffer as it is (a proof's hashes are), else a view of the same bytes, not a copy.
  return (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('base64');
}

/**
 * Decodes standard padded base64, accepting only the one canonical spelling of the bytes
 * (Node's decoder skips unknown characters and ignores stray bits, which would let two texts
 * name one value). Returns undefined for anything else.
 */
export function fromCanonicalBase64(text: string): Buffer | undefined {
  if (!BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/** A proof as the API publishes it: a JSON array of base64 hashes, in proof order. */
export function encodeProof(proof: readonly Hash[]): string[] {
  return proof.map(toBase64);
}

/** Reads a proof published by `encodeProof`, rejecting anything but 32-byte canonical base64 hashes. */
export function decodeProof(encoded: unknown): Buffer[] {
  check(Array.isArray(encoded), 'malformed-proof', 'a proof is an array of base64 hashes');
  check(encoded.length <= MAX_PROOF_HASHES, 'malformed-proof', `a proof has at most ${MAX_PROOF_HASHES} hashes`);
  return encoded.map((item, i) => decodeHash(item, 'malformed-proof', `proof hash ${i}`));
}

/** Decodes one base64 hash of 32 bytes, or throws a VerificationError with `reason`. */
export function decodeHash(encoded: unknown, reason: VerificationReason, what: string): Buffer {
  const bytes = typeof encoded === 'string' ? fromCanonicalBase64(encoded) : undefined;
  check(bytes !== undefined && bytes.length === HASH_SIZE, reason, `${what} is not a base64 SHA-256 hash`);
  return bytes;
}
