import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, pageQuery, PathName } from '../shared.ts';
import { ApprovalListItem, CommitWithArtifacts, Review } from './approval.ts';

/** GET /approvals/{org}/{flow_name} */
export const listApprovals = defineOperation({
  id: 'listApprovals',
  summary: 'List approvals',
  description: 'The approvals of a flow, newest first.',
  tags: ['Approvals'],
  method: 'GET',
  path: paths.listApprovals,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation'), flow_name: PathName('Flow name') }),
  query: Type.Object({
    ...pageQuery({ minimum: 1, maximum: 100, default: 20 }),
  }),
  body: undefined,
  responses: {
    200: { description: 'A page of approvals', schema: Type.Array(Type.Ref(ApprovalListItem)) },
    400: { description: 'Invalid query', schema: Type.Ref(ErrorBody) },
    404: { description: 'Flow not found', schema: Type.Ref(ErrorBody) },
  },
  schemas: [Review, CommitWithArtifacts, ApprovalListItem],
});
