import { type Checkpoint, openCheckpoint } from './checkpoint.ts';
import { check } from './errors.ts';
import { leafHash as hashLeaf, sameHash, type Hash } from './hashing.ts';
import { type NoteVerifier, parseVerifierKey } from './note-keys.ts';
import { verifyConsistency, verifyInclusion } from './verify-proofs.ts';

/** What an auditor holds to prove one leaf was in the log: the leaf, its proof, a signed checkpoint. */
export interface LeafInclusionEvidence {
  /** The leaf's bytes; when `leafHash` is given too, they must hash to it. */
  readonly leaf?: Uint8Array;
  /** The leaf hash SHA-256(0x00 ‖ leaf), when the leaf itself is not at hand. */
  readonly leafHash?: Hash;
  readonly index: number;
  readonly proof: readonly Hash[];
  /** The signed checkpoint (C2SP signed note) the proof leads to. */
  readonly checkpoint: string | Uint8Array;
  /** The log's verifier key, as a string or already parsed. */
  readonly verifierKey: string | NoteVerifier;
  /** The expected origin of the checkpoint, when known. */
  readonly origin?: string;
}

/**
 * Verifies offline that a leaf is at `index` in the tree a signed checkpoint commits to: the
 * checkpoint's signature, its origin, then the inclusion proof against its size and root.
 * Returns the checkpoint; throws a VerificationError whose `reason` names what failed.
 */
export function verifyLeafInclusion(evidence: LeafInclusionEvidence): Checkpoint {
  const { leaf, index, proof } = evidence;
  check(leaf !== undefined || evidence.leafHash !== undefined, 'malformed-hash', 'a leaf or its leaf hash is needed');
  const hash = leaf === undefined ? evidence.leafHash! : hashLeaf(leaf);
  check(evidence.leafHash === undefined || sameHash(hash, evidence.leafHash), 'leaf-mismatch', `leaf ${index} does not hash to its leaf hash`);
  const { checkpoint } = openCheckpoint(evidence.checkpoint, verifierOf(evidence.verifierKey), evidence.origin);
  verifyInclusion(index, checkpoint.size, hash, proof, checkpoint.rootHash);
  return checkpoint;
}

/** Two signed checkpoints of one log and the consistency proof between them. */
export interface CheckpointConsistencyEvidence {
  readonly older: string | Uint8Array;
  readonly newer: string | Uint8Array;
  readonly proof: readonly Hash[];
  readonly verifierKey: string | NoteVerifier;
  readonly origin?: string;
}

/**
 * Verifies offline that the newer checkpoint's tree extends the older one's: both signed by the
 * one verifier key, of one origin, and the RFC 9162 consistency proof from the older size and
 * root to the newer. Throws a VerificationError whose `reason` names what failed.
 */
export function verifyCheckpointConsistency(evidence: CheckpointConsistencyEvidence): { older: Checkpoint; newer: Checkpoint } {
  const verifier = verifierOf(evidence.verifierKey);
  const older = openCheckpoint(evidence.older, verifier, evidence.origin).checkpoint;
  const newer = openCheckpoint(evidence.newer, verifier, evidence.origin).checkpoint;
  check(
    older.origin === newer.origin,
    'origin-mismatch',
    `the checkpoints are of two logs: ${JSON.stringify(older.origin)} and ${JSON.stringify(newer.origin)}`,
  );
  verifyConsistency(older.size, newer.size, older.rootHash, newer.rootHash, evidence.proof);
  return { older, newer };
}

function verifierOf(key: string | NoteVerifier): NoteVerifier {
  return typeof key === 'string' ? parseVerifierKey(key) : key;
}
