/** The approval resource shared by list approvals and get approval. */
import { Type, type TSchema } from '@sinclair/typebox';
import { CreatedBy, EpochSeconds, Literals, UserData } from '../shared.ts';
import { LogIndex } from './log.ts';

export const approvalStates = ['APPROVED', 'UNAPPROVED', 'PENDING'] as const;

export const Review = Type.Object(
  {
    state: Type.Union([Type.Literal('APPROVED'), Type.Literal('UNAPPROVED')]),
    comment: Type.String(),
    approved_by: Type.String(),
    approval_url: Type.String(),
    timestamp: EpochSeconds(),
    created_by: CreatedBy,
    log_index: LogIndex,
  },
  { $id: 'Review', description: 'One individual approval (review)', additionalProperties: false },
);

export const CommitWithArtifacts = Type.Object(
  {
    commit_sha: Type.String({ pattern: '^[a-f0-9]{40}$' }),
    artifact_fingerprints: Type.Array(Type.String()),
  },
  { $id: 'CommitWithArtifacts', additionalProperties: false },
);

/** Approval fields; `src_commit_list` differs between the list and the get shape. */
export const approvalShape = <T extends TSchema>(commit: T, $id: string) =>
  Type.Object(
    {
      release_number: Type.Integer({ description: 'The approval number' }),
      base_artifact: Type.String({ description: 'Base artifact fingerprint' }),
      artifact_name: Type.String(),
      target_artifact: Type.String({ description: 'Target artifact fingerprint' }),
      description: Type.String(),
      src_commit_list: Type.Array(commit),
      created_at: EpochSeconds(),
      created_by: CreatedBy,
      log_index: LogIndex,
      last_modified_at: EpochSeconds(),
      state: Literals(approvalStates),
      approvals: Type.Array(Type.Ref(Review)),
      environment: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      user_data: Type.Optional(Type.Union([Type.Ref(UserData), Type.Null()])),
    },
    { $id, additionalProperties: false },
  );

export const ApprovalListItem = approvalShape(Type.String({ pattern: '^[a-f0-9]{40}$' }), 'ApprovalListItem');
export const Approval = approvalShape(Type.Ref(CommitWithArtifacts), 'Approval');
