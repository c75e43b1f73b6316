/**
 * The audit package: a `.tar.gz` an auditor checks offline against one signed
 * checkpoint. docs/verification.md ("Audit package") says the layout byte by byte; this module
 * holds what the writer and the verifier share: names, the manifest, the README, the errors.
 */
import type { VerificationReason } from '../transparency/index.ts';

/** The `format` of every manifest this code writes. */
export const PACKAGE_FORMAT = 'trailproof-audit-package/2';
/** The first format, still verified: it does not prove a selection complete. */
export const PACKAGE_FORMAT_1 = 'trailproof-audit-package/1';

/** Leaves per part of a selection's leaf list (`leaves/N`): a power of two, so each full part is one complete subtree. */
export const LEAF_LIST_PART = 4096;

/** The kinds of evidence a leaf vouches for, by the leaf's `type`, and the API view's file name. */
export const viewFileOf = {
  'trail.begin': 'trail.json',
  attestation: 'attestation.json',
  artifact: 'artifact.json',
  snapshot: 'snapshot.json',
  approval: 'approval.json',
  review: 'review.json',
  'policy.version': 'policy.json',
  verdict: 'verdict.json',
} as const;
export type LeafType = keyof typeof viewFileOf;

/** The table each kind of leaf names in its `ref`. */
export const tableOfLeaf: Record<LeafType, string> = {
  'trail.begin': 'trails',
  attestation: 'attestations',
  artifact: 'artifacts',
  snapshot: 'snapshots',
  approval: 'approvals',
  review: 'reviews',
  'policy.version': 'policy_versions',
  verdict: 'verdicts',
};

/** Where each part sits in the archive (no leading folder, `/` separators). */
export const paths = {
  readme: 'README.md',
  manifest: 'manifest.json',
  checkpoint: 'checkpoint',
  key: 'key',
  leaf: (index: number) => `records/${index}/leaf`,
  proof: (index: number) => `records/${index}/proof.json`,
  row: (index: number) => `records/${index}/row.json`,
  view: (index: number, type: LeafType) => `records/${index}/${viewFileOf[type]}`,
  deployments: (index: number) => `records/${index}/deployments.json`,
  attachment: (sha256: string) => `attachments/${sha256}`,
  leafList: (start: number) => `leaves/${start}`,
} as const;

/** The files of a record folder, as they follow `records/<index>/`. */
export const recordFiles = ['leaf', 'proof.json', 'row.json', 'deployments.json', ...Object.values(viewFileOf)] as const;
export type RecordFile = (typeof recordFiles)[number];

/** Which evidence was selected, as the export was asked for it. */
export interface Selection {
  readonly flow?: string;
  readonly trail?: string;
  /** Unix seconds, inclusive. */
  readonly since?: number;
  /** Unix seconds, inclusive. */
  readonly until?: number;
}

/** `manifest.json`: what the package is of; the verifier checks it against the signed checkpoint. */
export interface Manifest {
  readonly format: typeof PACKAGE_FORMAT | typeof PACKAGE_FORMAT_1;
  readonly organization: string;
  /** The checkpoint's origin line. */
  readonly origin: string;
  readonly tree_size: number;
  /** The checkpoint's root hash, base64. */
  readonly root_hash: string;
  readonly selection: Selection;
  /** Unix seconds. */
  readonly exported_at: number;
}

/** Reasons of the package's own checks, beside the transparency log's (`VerificationReason`). */
export type PackageReason =
  | VerificationReason
  | 'malformed-package' // not a gzip tar, an entry that is not a regular file, a name outside the layout, a part twice or missing
  | 'manifest-mismatch' // the manifest says another log, size or root than the signed checkpoint
  | 'attachment-mismatch' // an attachment's bytes do not hash to its name, or their size is not the attestation's
  | 'attachment-missing' // an attestation names an attachment the package does not hold
  | 'leaf-malformed' // a leaf is not a record of the organisation's log at its index
  | 'row-mismatch' // a stored row does not hash to the digest its leaf holds, or is another row than the leaf names
  | 'record-mismatch' // the evidence as the API shows it says something its row or leaf does not
  | 'verdict-mismatch' // a verdict does not follow from the policy versions and evidence it names
  | 'package-incomplete' // a leaf of the selection is not in the package, or the leaf list misses a part
  | 'outside-selection' // a record, or an attachment, is not of the selection the manifest names
  | 'leaf-list-mismatch'; // the leaf list does not lead to the checkpoint's root

/** A failed package check: the reason, and the path inside the package of the part at fault. */
export class PackageVerificationError extends Error {
  constructor(
    readonly reason: PackageReason,
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'PackageVerificationError';
  }
}

/** What the README says the package proves of its completeness. */
function completenessText(manifest: Manifest): string {
  const whole = Object.values(manifest.selection).every((value) => value === undefined);
  if (whole)
    return `
## Complete

This is a package of the whole log: it holds records/N for every N from 0 to ${manifest.tree_size - 1},
and verify-package refuses it if one is missing.
`;
  return `- leaves/N: every leaf of the log, ${LEAF_LIST_PART} a part from leaf N, each followed by a newline.

## Complete

The selection is ${JSON.stringify(manifest.selection)}. The leaves in leaves/ lead to the
checkpoint's root (RFC 9162 tree hash), so they are the log; each one says its type, time, flow and
trail, so anyone can see which leaves the selection picks. verify-package refuses the package unless
records/ holds exactly those.
`;
}

/** The README at the top of every package: what is inside and how to check it by hand. */
export function readmeText(manifest: Manifest): string {
  return `# Trailproof audit package

Evidence of the organisation "${manifest.organization}", with the proof that each piece of it is
in the organisation's append-only log (RFC 9162 Merkle tree) at the signed checkpoint below:
origin ${manifest.origin}, ${manifest.tree_size} leaves. Format ${PACKAGE_FORMAT}.

## What is inside

- checkpoint: the signed checkpoint (C2SP tlog-checkpoint in a signed note, Ed25519).
- key: the log's verifier key as the server published it. Check the checkpoint with a key you
  obtained yourself (GET /api/v2/log/ORG/key, \`trailproof key show\`), not only with this file.
- manifest.json: the organisation, the checkpoint's origin, size and root, what was selected.
- records/N/leaf: leaf N of the log, its exact bytes (canonical JSON: seq, org, type, at, ref,
  digest, data). Its leaf hash is SHA-256(0x00 || leaf).
- records/N/proof.json: the inclusion proof of leaf N against the checkpoint (a JSON array of
  base64 SHA-256 hashes, RFC 9162 section 2.1.3).
- records/N/row.json: the stored row the leaf vouches for, as canonical JSON: its SHA-256 is
  the leaf's "digest".
- records/N/trail.json, attestation.json, snapshot.json, approval.json, review.json,
  policy.json: that evidence as the API shows it; deployments.json beside a snapshot: the
  deployments it made.
- attachments/SHA256: each attachment, byte for byte, named by its SHA-256.
${completenessText(manifest)}
## How to check it

All at once, offline:

    trailproof verify-package THIS_FILE.tar.gz --key VERIFIER_KEY

By hand, after \`tar -xzf THIS_FILE.tar.gz\`:

1. Attachments: \`cd attachments && for f in *; do echo "$f  $f"; done | sha256sum -c\`
2. Rows: \`sha256sum records/N/row.json\` equals the "digest" in records/N/leaf.
3. Leaves: the Python script in docs/verification.md ("Checking a proof with Python and
   OpenSSL") checks the checkpoint's signature and each inclusion proof:
   \`python3 verify.py inclusion "$(cat key)" checkpoint records/N/leaf N records/N/proof.json\`
4. Evidence: the facts in each API view (ids, names, attachment digests, times, data) are
   those of row.json, and the attestation's attachment is attachments/<attachment_sha256>.
`;
}
