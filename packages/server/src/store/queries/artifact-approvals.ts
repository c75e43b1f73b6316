/** The approvals whose target is one of some artifacts: which approval covered what runs in an environment. */
import { approvalState } from './approvals.ts';
import { compiledOnce } from '../compiled-once.ts';
import { firstOfChunks, inListChunks, type Db } from '../database.ts';

export interface ArtifactApproval {
  fingerprint: string;
  flowName: string;
  releaseNumber: number;
  state: string;
  /** The environment it was requested for; null for any. */
  environment: string | null;
}

/** Most approvals the environment page reads. */
const maxApprovals = 1000;

// Read by the environment page at each request: compiled once per number of fingerprints.
const approvalsTargeting = compiledOnce((db, v: { organizationId: number; fingerprints: string[] }) =>
  db
    .selectFrom('approvals as a')
    .innerJoin('flows as f', 'f.id', 'a.flow_id')
    .select(['a.id', 'a.target_artifact', 'f.name as flow_name', 'a.release_number', 'a.environment', 'a.created_at'])
    .where('f.organization_id', '=', v.organizationId)
    .where('a.target_artifact', 'in', v.fingerprints)
    .orderBy('a.created_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(maxApprovals),
);

const newestFirst = (a: { created_at: number; id: number }, b: { created_at: number; id: number }) =>
  Number(b.created_at) - Number(a.created_at) || Number(b.id) - Number(a.id);

/** Approvals of the organisation's flows targeting one of `fingerprints`, newest first. */
export async function approvalsOfFingerprints(db: Db, organizationId: number, fingerprints: readonly string[]): Promise<ArtifactApproval[]> {
  if (!fingerprints.length) return [];
  const rows = await firstOfChunks(
    [...new Set(fingerprints)],
    maxApprovals,
    (chunk) => approvalsTargeting(db, { organizationId, fingerprints: chunk }),
    newestFirst,
  );
  // An approval's state follows from its reviews (approvals are append-only), as `getApproval` reads it.
  const reviews = (
    await Promise.all(
      inListChunks(rows.map((r) => Number(r.id))).map((ids) =>
        db.selectFrom('reviews').select(['approval_id', 'state']).where('approval_id', 'in', ids).execute(),
      ),
    )
  ).flat();
  const statesOf = new Map<number, Array<{ state: 'APPROVED' | 'UNAPPROVED' }>>();
  for (const review of reviews)
    statesOf.set(Number(review.approval_id), [...(statesOf.get(Number(review.approval_id)) ?? []), { state: review.state as 'APPROVED' | 'UNAPPROVED' }]);
  return rows.map((r) => ({
    fingerprint: r.target_artifact,
    flowName: r.flow_name,
    releaseNumber: Number(r.release_number),
    state: approvalState(statesOf.get(Number(r.id)) ?? []),
    environment: r.environment,
  }));
}

export const reads = { approvalsOfFingerprints };
export const writes = {};
