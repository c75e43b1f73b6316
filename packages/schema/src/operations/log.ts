/** What the transparency log's operations share (issue 34): the organisation path and the shapes of answers. */
import { Type } from '@sinclair/typebox';
import { ErrorBody, EpochSeconds, PathName } from '../shared.ts';

/** Path parameters of every log operation. */
export const LogParams = Type.Object({ org: PathName('Organisation') });

/** A leaf index or tree size: a whole number below 2^53. */
export const TreeCount = (description: string, minimum = 0) => Type.Integer({ minimum, maximum: Number.MAX_SAFE_INTEGER, description });

const Base64Hash = Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$', maxLength: 44, description: 'A SHA-256 hash, standard base64 with padding' });

/** Where a piece of evidence is in its organisation's log; null for none (never for evidence stored by this version). */
export const logIndex = (description: string) => Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], { description });
export const LogIndex = logIndex(
  "The evidence's leaf index in the organisation's transparency log: ask GET /log/{org}/proof/inclusion?index=log_index for its proof",
);

/** An RFC 9162 proof as published: a JSON array of base64 hashes, in proof order (docs/verification.md). */
export const Proof = Type.Array(Base64Hash, { maxItems: 64, description: 'The proof: base64 SHA-256 hashes in RFC 9162 order' });

export const LogCheckpoint = Type.Object(
  {
    tree_size: TreeCount('The number of leaves the checkpoint commits to'),
    root_hash: Base64Hash,
    created_at: EpochSeconds({ description: 'When the server signed it (Unix seconds)' }),
    checkpoint: Type.String({ description: 'The signed checkpoint: a C2SP signed note (origin, size and root hash lines, a blank line, the signature line)' }),
  },
  { $id: 'LogCheckpoint', additionalProperties: false },
);

/** Answers every log operation shares beside its own. */
export const logErrors = {
  400: { description: 'Invalid query: a value out of range names its field', schema: Type.Ref(ErrorBody) },
  404: { description: 'Organisation not found, or nothing logged yet', schema: Type.Ref(ErrorBody) },
} as const;

export { Base64Hash };
