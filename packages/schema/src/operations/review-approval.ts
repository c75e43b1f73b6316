import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { Approval, CommitWithArtifacts, Review } from './approval.ts';
import { ReviewInput } from './request-approval.ts';

/** PUT /approvals/{org}/{flow_name}/{approval_number} (an extension of the reference) */
export const reviewApproval = defineOperation({
  id: 'reviewApproval',
  summary: 'Review approval',
  description:
    'Add one review to an approval and move its state: any UNAPPROVED review makes it UNAPPROVED, otherwise it is APPROVED. ' +
    'Negative numbers count back from the latest (-1 is the latest).',
  tags: ['Approvals'],
  method: 'PUT',
  path: paths.reviewApproval,
  access: 'write',
  params: Type.Object({
    org: PathName('Organisation'),
    flow_name: PathName('Flow name'),
    approval_number: Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000, not: { const: 0 } }),
  }),
  query: Type.Object({}),
  body: { kind: 'json', data: ReviewInput },
  responses: {
    200: { description: 'The approval with the review added', schema: Type.Ref(Approval) },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow or approval not found', schema: Type.Ref(ErrorBody) },
    422: { description: 'The approval holds 100 reviews, the most one may hold (request a new approval)', schema: Type.Ref(ErrorBody) },
  },
  schemas: [ReviewInput, Review, CommitWithArtifacts, Approval],
});
