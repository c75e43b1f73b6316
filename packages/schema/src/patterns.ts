/**
 * The patterns names and digests must match, as plain strings without TypeBox, so a client (the
 * action's bundle) checks its input by the same rules as the server for a few bytes.
 */

/** Identifier used in paths (org, flow, trail, environment names); at most `limits.name` characters. */
export const NamePattern = '^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$';
/** An attestation's name (and a target artifact's); at most `limits.name` characters. */
export const AttestationNamePattern = '^[a-zA-Z0-9\\-_,]+$';
/** A SHA-256 fingerprint in lower-case hex. */
export const Sha256Pattern = '^[a-f0-9]{64}$';
