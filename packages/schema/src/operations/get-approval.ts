import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, PathName } from '../shared.ts';
import { Approval, CommitWithArtifacts, Review } from './approval.ts';

/** GET /approvals/{org}/{flow_name}/{approval_number} */
export const getApproval = defineOperation({
  id: 'getApproval',
  summary: 'Get approval',
  description: 'One approval of a flow by its number; negative numbers count back from the latest (-1 is the latest).',
  tags: ['Approvals'],
  method: 'GET',
  path: paths.getApproval,
  access: 'read',
  params: Type.Object({
    org: PathName('Organisation'),
    flow_name: PathName('Flow name'),
    approval_number: Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000, not: { const: 0 } }),
  }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The approval', schema: Type.Ref(Approval) },
    404: { description: 'Flow or approval not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [Review, CommitWithArtifacts, Approval],
});
