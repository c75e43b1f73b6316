/** An approval as the API answers it: shared by the approval operations and the audit package. */
import { createdByName } from '../../domain/created-by.ts';
import type { ApprovalRecord } from '../../store/types.ts';

/** Where an approval and its reviews are in the organisation's log (store.approvalLogIndexes). */
export interface ApprovalLeaves {
  approval: number | null;
  reviews: ReadonlyArray<number | null>;
}

/** The fields every approval answer shares; `src_commit_list` is shaped by the caller. */
export function approvalFields({ id: _id, environment, user_data, createdBy, approvals, ...approval }: ApprovalRecord, leaves: ApprovalLeaves | undefined) {
  return {
    ...approval,
    created_by: createdByName(createdBy),
    log_index: leaves?.approval ?? null,
    approvals: approvals.map(({ createdBy: by, ...review }, i) => ({ ...review, created_by: createdByName(by), log_index: leaves?.reviews[i] ?? null })),
    environment,
    ...(user_data === null ? {} : { user_data: user_data as never }),
  };
}
