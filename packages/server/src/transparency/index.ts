/**
 * The transparency log's core: RFC 9162 Merkle trees and proofs, C2SP signed notes and
 * checkpoints, and offline verification. Pure: no store, no HTTP.
 */
export { CompactRange, foldRight, frontierIds, rootOfLeafHashes, type Subtree, type SubtreeId } from './compact-range.ts';
export { type Checkpoint, formatCheckpoint, openCheckpoint, parseCheckpoint, signCheckpoint, type SignedCheckpoint } from './checkpoint.ts';
export { decodeHash, decodeProof, encodeProof, fromCanonicalBase64, MAX_PROOF_HASHES, toBase64 } from './encoding.ts';
export { VerificationError, type VerificationReason, verificationOutcome } from './errors.ts';
export { emptyRoot, HASH_SIZE, type Hash, leafHash, nodeHash } from './hashing.ts';
export { MemoryTree } from './memory-tree.ts';
export { hasPosition, MAX_POSITIONED_LEAVES, subtreePosition, subtreePositions, subtreesOf } from './subtree-positions.ts';
export {
  generateNoteKey,
  type GeneratedNoteKey,
  isValidKeyName,
  type NoteSigner,
  noteKeyHash,
  type NoteVerifier,
  parseSignerKey,
  parseVerifierKey,
} from './note-keys.ts';
export { type CheckpointConsistencyEvidence, type LeafInclusionEvidence, verifyCheckpointConsistency, verifyLeafInclusion } from './offline.ts';
export {
  assembleProof,
  consistencyProof,
  consistencyProofPlan,
  inclusionProof,
  inclusionProofPlan,
  type ProofNode,
  type ProofPlan,
  readProof,
  rememberRanges,
  type RangeHashes,
  rootPlan,
  type SubtreeSource,
  subtreeKey,
  treeRoot,
} from './proofs.ts';
export { MAX_NOTE_SIGNATURES, type NoteSignature, openNote, type ParsedNote, parseNote, signNote } from './signed-note.ts';
export { rootFromInclusionProof, verifyConsistency, verifyInclusion } from './verify-proofs.ts';
