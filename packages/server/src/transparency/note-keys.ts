import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { check, VerificationError } from './errors.ts';
import { fromCanonicalBase64, toBase64 } from './encoding.ts';

/** The algorithm byte of an Ed25519 key in Go's note format (golang.org/x/mod/sumdb/note). */
const ALG_ED25519 = 0x01;
const ED25519_KEY_SIZE = 32;
// PKCS#8 DER of an Ed25519 private key is this prefix followed by the 32-byte seed (RFC 8410).
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A key that checks signatures on notes: `name+hash+base64(0x01 ‖ public key)`. */
export interface NoteVerifier {
  readonly name: string;
  /** The first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key), big-endian. */
  readonly keyHash: number;
  readonly publicKey: KeyObject;
  /** The verifier key string. */
  readonly verifierKey: string;
}

/** A key that signs notes; it knows its verifier key too. */
export interface NoteSigner extends NoteVerifier {
  readonly privateKey: KeyObject;
}

/** The signer and verifier key strings of a newly generated Ed25519 key named `name`. */
export interface GeneratedNoteKey {
  /** `PRIVATE+KEY+name+hash+base64(0x01 ‖ seed)`: secret. */
  readonly signerKey: string;
  /** `name+hash+base64(0x01 ‖ public key)`: published. */
  readonly verifierKey: string;
}

/**
 * Whether `name` can name a key: non-empty well-formed text without spaces or '+', as Go's note
 * package requires (the name is the first field of both key strings and of signature lines).
 */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+\p{Cs}]/u.test(name);
}

/** The key hash of Go's note format: the first 4 bytes of SHA-256(name ‖ 0x0A ‖ key), big-endian. */
export function noteKeyHash(name: string, algorithmAndKey: Uint8Array): number {
  return createHash('sha256').update(name).update('\n').update(algorithmAndKey).digest().readUInt32BE(0);
}

/** Generates a new Ed25519 key pair named `name`, as signer and verifier key strings. */
export function generateNoteKey(name: string): GeneratedNoteKey {
  if (!isValidKeyName(name)) throw new RangeError(`a key name is non-empty text without spaces or '+', got ${JSON.stringify(name)}`);
  const { privateKey } = generateKeyPairSync('ed25519');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const signer = signerFromSeed(name, seed);
  const hash = hex8(signer.keyHash);
  return { signerKey: `PRIVATE+KEY+${name}+${hash}+${toBase64(Buffer.concat([Buffer.from([ALG_ED25519]), seed]))}`, verifierKey: signer.verifierKey };
}

/** Reads a verifier key string; throws a VerificationError ('malformed-key') when it is not one. */
export function parseVerifierKey(verifierKey: string): NoteVerifier {
  const [name = '', hash16 = '', key64 = ''] = splitFields(verifierKey, 3);
  const key = fromCanonicalBase64(key64);
  check(isValidKeyName(name) && /^[0-9a-f]{8}$/.test(hash16) && key !== undefined, 'malformed-key', 'a verifier key is name+hash+base64 key');
  check(key.length === 1 + ED25519_KEY_SIZE && key[0] === ALG_ED25519, 'malformed-key', 'the verifier key is not an Ed25519 key');
  check(noteKeyHash(name, key) === parseInt(hash16, 16), 'malformed-key', `the verifier key's hash ${hash16} does not match its name and key`);
  return { name, keyHash: parseInt(hash16, 16), publicKey: publicKeyFromRaw(key.subarray(1)), verifierKey };
}

/** Reads a signer key string; throws a VerificationError ('malformed-key') when it is not one. */
export function parseSignerKey(signerKey: string): NoteSigner {
  const [private1, private2, name = '', hash16 = '', key64 = ''] = splitFields(signerKey, 5);
  const key = fromCanonicalBase64(key64);
  check(
    private1 === 'PRIVATE' && private2 === 'KEY' && isValidKeyName(name) && /^[0-9a-f]{8}$/.test(hash16) && key !== undefined,
    'malformed-key',
    'a signer key is PRIVATE+KEY+name+hash+base64 key',
  );
  check(key.length === 1 + ED25519_KEY_SIZE && key[0] === ALG_ED25519, 'malformed-key', 'the signer key is not an Ed25519 key');
  const signer = signerFromSeed(name, key.subarray(1));
  check(signer.keyHash === parseInt(hash16, 16), 'malformed-key', `the signer key's hash ${hash16} does not match its name and key`);
  return signer;
}

function signerFromSeed(name: string, seed: Uint8Array): NoteSigner {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey);
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const algorithmAndKey = Buffer.concat([Buffer.from([ALG_ED25519]), raw]);
  const keyHash = noteKeyHash(name, algorithmAndKey);
  return { name, keyHash, publicKey, privateKey, verifierKey: `${name}+${hex8(keyHash)}+${toBase64(algorithmAndKey)}` };
}

function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
  } catch {
    throw new VerificationError('malformed-key', 'the verifier key is not a valid Ed25519 public key');
  }
}

// Splits at the first count-1 '+' signs: base64, the last field, may itself contain '+'.
function splitFields(text: string, count: number): string[] {
  const fields: string[] = [];
  let rest = typeof text === 'string' ? text : '';
  for (let i = 1; i < count; i++) {
    const at = rest.indexOf('+');
    if (at < 0) return Array<string>(count).fill('');
    fields.push(rest.slice(0, at));
    rest = rest.slice(at + 1);
  }
  fields.push(rest);
  return fields;
}

function hex8(value: number): string {
  return value.toString(16).padStart(8, '0');
}
