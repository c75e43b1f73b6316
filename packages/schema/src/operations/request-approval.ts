import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { limits } from '../limits.ts';
import { CommitSha, ErrorBody, LongText, Nullable, PathName, Sha256Hex, ShortText, Url, UserData } from '../shared.ts';
import { Approval, CommitWithArtifacts, Review } from './approval.ts';

/** Most commits one approval may list. */
export const maxApprovalCommits = 5_000;

/** One review as a client sends it; the server stamps its time. */
export const ReviewInput = Type.Object(
  {
    state: Type.Union([Type.Literal('APPROVED'), Type.Literal('UNAPPROVED')]),
    approved_by: ShortText({ minLength: 1, description: 'Who reviewed' }),
    comment: Nullable(LongText()),
    approval_url: Nullable(Url({ description: 'Where the review was made' })),
  },
  { $id: 'ReviewInput', additionalProperties: false },
);

export const ApprovalInput = Type.Object(
  {
    artifact_fingerprint: Sha256Hex,
    description: LongText(),
    src_commit_list: Type.Array(CommitSha, { maxItems: maxApprovalCommits }),
    environment: Nullable(ShortText({ description: 'Environment the approval is valid for' })),
    oldest_commit: Nullable(CommitSha),
    approvals: Nullable(Type.Array(Type.Ref(ReviewInput), { maxItems: limits.smallArray, description: 'Reviews given already' })),
    user_data: Nullable(Type.Ref(UserData)),
  },
  { $id: 'ApprovalPostInput', additionalProperties: false },
);

/** POST /approvals/{org}/{flow_name} */
export const requestApproval = defineOperation({
  id: 'requestApproval',
  summary: 'Create approval',
  description:
    "Request (or record) an approval of an artifact; it gets the flow's next release_number. No reviews: PENDING; " +
    'any UNAPPROVED review: UNAPPROVED; otherwise APPROVED.',
  tags: ['Approvals'],
  method: 'POST',
  path: paths.requestApproval,
  access: 'write',
  params: Type.Object({ org: PathName('Organisation'), flow_name: PathName('Flow name') }),
  query: Type.Object({}),
  body: { kind: 'json', data: ApprovalInput },
  responses: {
    201: { description: 'The approval created', schema: Type.Ref(Approval) },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [ReviewInput, ApprovalInput, Review, CommitWithArtifacts, Approval],
});
