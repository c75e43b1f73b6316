/**
 * Why a transparency-log check failed. Each reason names one thing, so a verifier can tell an
 * auditor exactly which part of a proof, note or checkpoint is wrong.
 */
export type VerificationReason =
  | 'malformed-proof' // a proof hash is not 32 bytes, not canonical base64, or the proof is too long
  | 'malformed-hash' // a leaf hash or root hash is not 32 bytes
  | 'index-out-of-range' // the leaf index is not below the tree size
  | 'size-order' // a consistency proof from a larger to a smaller tree
  | 'proof-length' // the proof has too many or too few hashes for the index and size
  | 'inclusion-root-mismatch' // the proof leads to another root than the checkpoint's
  | 'consistency-old-root-mismatch' // the proof does not lead to the older tree's root
  | 'consistency-new-root-mismatch' // the proof does not lead to the newer tree's root
  | 'leaf-mismatch' // the leaf does not hash to the leaf hash given with it
  | 'malformed-key' // a signer or verifier key string is malformed or its hash is wrong
  | 'malformed-note' // the signed note is not well formed text (blank line, signature lines, UTF-8)
  | 'no-signature-by-key' // the note has no signature by the verifier's name and key hash
  | 'bad-signature' // the signature by the verifier's key does not verify
  | 'malformed-checkpoint' // the note's text is not a tlog-checkpoint
  | 'origin-mismatch'; // the checkpoint's origin is not the expected one (or two checkpoints differ)

/** A failed verification: `reason` is the machine-readable cause, `message` says it for people. */
export class VerificationError extends Error {
  readonly reason: VerificationReason;

  constructor(reason: VerificationReason, message: string) {
    super(message);
    this.name = 'VerificationError';
    this.reason = reason;
  }
}

/** Throws a VerificationError with `reason` unless `condition` holds. */
export function check(condition: boolean, reason: VerificationReason, message: string): asserts condition {
  if (!condition) throw new VerificationError(reason, message);
}

/**
 * Runs `action` and returns the reason of the VerificationError it throws, or 'verified' when
 * it throws none. Other errors propagate: they are bugs or misuse, not failed verification.
 */
export function verificationOutcome(action: () => unknown): VerificationReason | 'verified' {
  try {
    action();
    return 'verified';
  } catch (error) {
    if (error instanceof VerificationError) return error.reason;
    throw error;
  }
}
