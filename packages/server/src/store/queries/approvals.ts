import { firstOfChunks, inListChunks, type Db } from '../database.ts';
import { inTransaction } from '../transactions.ts';
import { appendEvidence, byToken } from './chain.ts';
import { fromJson, toJson } from '../json.ts';
import { tokenRef, type TokenRef } from './provenance.ts';

export type ApprovalState = 'APPROVED' | 'UNAPPROVED' | 'PENDING';

export interface ReviewRecord {
  state: 'APPROVED' | 'UNAPPROVED';
  comment: string;
  approved_by: string;
  approval_url: string;
  timestamp: number;
}

/** A stored review: what was sent, and the token that sent it (null for reviews stored before migration 0015). */
export interface StoredReview extends ReviewRecord {
  createdBy: TokenRef | null;
}

export interface ApprovalRecord {
  id: number;
  release_number: number;
  base_artifact: string;
  artifact_name: string;
  target_artifact: string;
  description: string;
  src_commit_list: string[];
  created_at: number;
  last_modified_at: number;
  state: ApprovalState;
  approvals: StoredReview[];
  environment: string | null;
  user_data: unknown;
  /** The token that requested it; null for approvals stored before migration 0015. */
  createdBy: TokenRef | null;
}

export interface ApprovalInsert {
  flowId: number;
  targetArtifact: string;
  baseArtifact: string;
  artifactName: string;
  description: string;
  environment: string | null;
  srcCommitList: string[];
  userData: unknown;
  state: ApprovalState;
  reviews: ReviewRecord[];
  /** The id of the requesting token, named in the chain records of the approval and its reviews. */
  createdBy: string | null;
  at: number;
}

/** Inserts an approval with the flow's next release number. Call inside a transaction. */
export function insertApproval(db: Db, a: ApprovalInsert): Promise<number> {
  return inTransaction(db, (trx) => insertApprovalIn(trx, a));
}

async function insertApprovalIn(db: Db, a: ApprovalInsert): Promise<number> {
  const { last } = await db
    .selectFrom('approvals')
    .select((eb) => eb.fn.max<number | null>('release_number').as('last'))
    .where('flow_id', '=', a.flowId)
    .executeTakeFirstOrThrow();
  const releaseNumber = Number(last ?? 0) + 1;
  const row = await db
    .insertInto('approvals')
    .values({
      flow_id: a.flowId,
      release_number: releaseNumber,
      target_artifact: a.targetArtifact,
      base_artifact: a.baseArtifact,
      artifact_name: a.artifactName,
      description: a.description,
      environment: a.environment,
      src_commit_list: JSON.stringify(a.srcCommitList),
      user_data: toJson(a.userData),
      state: a.state,
      created_by_token: a.createdBy,
      created_at: a.at,
      last_modified_at: a.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const { organization_id: organizationId, name: flow } = await db
    .selectFrom('flows')
    .select(['organization_id', 'name'])
    .where('id', '=', a.flowId)
    .executeTakeFirstOrThrow();
  await appendEvidence(db, {
    organizationId: Number(organizationId),
    type: 'approval',
    at: a.at,
    ref: { table: 'approvals', id: Number(row.id) },
    data: { flow, release_number: releaseNumber, target_artifact: a.targetArtifact, ...byToken(a.createdBy) },
  });
  for (const review of a.reviews) await insertReviewIn(db, Number(organizationId), Number(row.id), review, a.at, a.createdBy);
  return releaseNumber;
}

/** Stores one review of an approval with its chain record. Reviews are never changed; the approval's state is derived from them. */
async function insertReviewIn(db: Db, organizationId: number, approvalId: number, review: ReviewRecord, at: number, createdBy: string | null): Promise<void> {
  const { state, comment, approved_by, approval_url, timestamp } = review;
  const row = await db
    .insertInto('reviews')
    .values({ approval_id: approvalId, state, comment, approved_by, approval_url, timestamp, created_by_token: createdBy })
    .returning('id')
    .executeTakeFirstOrThrow();
  await appendEvidence(db, {
    organizationId,
    type: 'review',
    at,
    ref: { table: 'reviews', id: Number(row.id) },
    data: { approval_id: approvalId, state: review.state, approved_by: review.approved_by, ...byToken(createdBy) },
  });
}

/**
 * Adds a review to an approval (a new row and its chain record; the approval row itself never
 * changes). `createdBy`: the id of the token that sent it, named in the record.
 */
export function addReview(db: Db, approvalId: number, review: ReviewRecord, createdBy: string | null): Promise<void> {
  return inTransaction(db, async (trx) => {
    const { organization_id } = await trx
      .selectFrom('approvals')
      .innerJoin('flows', 'flows.id', 'approvals.flow_id')
      .select('flows.organization_id')
      .where('approvals.id', '=', approvalId)
      .executeTakeFirstOrThrow();
    await insertReviewIn(trx, Number(organization_id), approvalId, review, review.timestamp, createdBy);
  });
}

/** No reviews: PENDING; any UNAPPROVED review: UNAPPROVED (a veto that later approvals do not lift); otherwise APPROVED. */
export function approvalState(reviews: ReadonlyArray<Pick<ReviewRecord, 'state'>>): ApprovalState {
  if (!reviews.length) return 'PENDING';
  return reviews.some((r) => r.state === 'UNAPPROVED') ? 'UNAPPROVED' : 'APPROVED';
}

/** An approval's columns, with the description of the token that requested it. */
const approvalsWithToken = (db: Db) =>
  db
    .selectFrom('approvals')
    .leftJoin('tokens', 'tokens.id', 'approvals.created_by_token')
    .select([
      'approvals.id',
      'approvals.release_number',
      'approvals.base_artifact',
      'approvals.artifact_name',
      'approvals.target_artifact',
      'approvals.description',
      'approvals.src_commit_list',
      'approvals.created_at',
      'approvals.environment',
      'approvals.user_data',
      'approvals.created_by_token',
      'tokens.description as token_description',
    ]);
type ApprovalRow = Awaited<ReturnType<ReturnType<typeof approvalsWithToken>['execute']>>[number];

async function withReviews(db: Db, rows: ApprovalRow[]): Promise<ApprovalRecord[]> {
  const ids = rows.map((r) => Number(r.id));
  // Each approval's reviews come in one slice, in id order.
  const slices = await Promise.all(
    inListChunks(ids).map((chunk) =>
      db
        .selectFrom('reviews')
        .leftJoin('tokens', 'tokens.id', 'reviews.created_by_token')
        .select([
          'reviews.approval_id',
          'reviews.state',
          'reviews.comment',
          'reviews.approved_by',
          'reviews.approval_url',
          'reviews.timestamp',
          'reviews.created_by_token',
          'tokens.description as token_description',
        ])
        .where('reviews.approval_id', 'in', chunk)
        .orderBy('reviews.id')
        .execute(),
    ),
  );
  const reviewsOf = new Map<number, StoredReview[]>(ids.map((id) => [id, []]));
  for (const v of slices.flat()) {
    reviewsOf.get(Number(v.approval_id))?.push({
      state: v.state as ReviewRecord['state'],
      comment: v.comment,
      approved_by: v.approved_by,
      approval_url: v.approval_url,
      timestamp: Number(v.timestamp),
      createdBy: tokenRef(v.created_by_token, v.token_description),
    });
  }
  return rows.map((r) => {
    const approvals = reviewsOf.get(Number(r.id))!;
    const createdAt = Number(r.created_at);
    // Approvals are append-only evidence: their state and modification time follow from their reviews.
    return {
      id: Number(r.id),
      release_number: Number(r.release_number),
      base_artifact: r.base_artifact,
      artifact_name: r.artifact_name,
      target_artifact: r.target_artifact,
      description: r.description,
      src_commit_list: fromJson(r.src_commit_list, []),
      created_at: createdAt,
      last_modified_at: Math.max(createdAt, ...approvals.map((a) => a.timestamp)),
      state: approvalState(approvals),
      environment: r.environment ?? null,
      user_data: fromJson(r.user_data, null),
      approvals,
      createdBy: tokenRef(r.created_by_token, r.token_description),
    };
  });
}

/** A page of a flow's approvals, newest first. */
export async function listApprovals(db: Db, flowId: number, offset: number, limit: number): Promise<ApprovalRecord[]> {
  const rows = await approvalsWithToken(db)
    .where('approvals.flow_id', '=', flowId)
    .orderBy('approvals.release_number', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return withReviews(db, rows);
}

/** One approval by number; negative numbers count back from the latest (-1 is the latest). */
/**
 * A flow's approvals of any of `targets` meant for `environment` or for none in particular, newest
 * first, a page at a time (those numbered below `belowRelease`, when given): the artifact-commit
 * lookup reads these instead of every approval.
 */
export async function approvalsOfArtifacts(
  db: Db,
  flowId: number,
  targets: readonly string[],
  environment: string,
  belowRelease: number | null,
  limit: number,
): Promise<ApprovalRecord[]> {
  if (!targets.length) return [];
  const rows = await firstOfChunks(
    [...new Set(targets)],
    limit,
    (chunk) =>
      approvalsWithToken(db)
        .where('approvals.flow_id', '=', flowId)
        .where('approvals.target_artifact', 'in', chunk)
        .where((eb) => eb.or([eb('approvals.environment', '=', environment), eb('approvals.environment', 'is', null)]))
        .$if(belowRelease !== null, (q) => q.where('approvals.release_number', '<', belowRelease!))
        .orderBy('approvals.release_number', 'desc')
        .limit(limit)
        .execute(),
    (a, b) => Number(b.release_number) - Number(a.release_number),
  );
  return withReviews(db, rows);
}

export async function getApproval(db: Db, flowId: number, number: number): Promise<ApprovalRecord | undefined> {
  let query = approvalsWithToken(db).where('approvals.flow_id', '=', flowId);
  query =
    number > 0
      ? query.where('approvals.release_number', '=', number)
      : query
          .orderBy('approvals.release_number', 'desc')
          .offset(-number - 1)
          .limit(1);
  const row = await query.executeTakeFirst();
  return row ? (await withReviews(db, [row]))[0] : undefined;
}

/** For each commit, the fingerprints of artifacts attested from it (by trails on that commit). */
export async function artifactsOfCommits(db: Db, organizationId: number, commits: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(commits.map((c) => [c, []]));
  // A commit's artifacts come in one slice, in fingerprint order.
  for (const chunk of inListChunks([...out.keys()])) {
    const rows = await db
      .selectFrom('attestations as a')
      .innerJoin('trails as t', 't.id', 'a.trail_id')
      .innerJoin('flows as f', 'f.id', 't.flow_id')
      .select(['t.commit_sha', 'a.artifact_fingerprint'])
      .distinct()
      .where('f.organization_id', '=', organizationId)
      .where('t.commit_sha', 'in', chunk)
      .where('a.artifact_fingerprint', 'is not', null)
      .orderBy('a.artifact_fingerprint')
      .execute();
    for (const r of rows) if (r.commit_sha && r.artifact_fingerprint) out.get(r.commit_sha)?.push(r.artifact_fingerprint);
  }
  return out;
}

export const reads = { listApprovals, approvalsOfArtifacts, getApproval, artifactsOfCommits };
export const writes = { insertApproval, addReview };
