/**
 * @trailproof/schema: the API v2 contract. Every operation is a plain value (method, path,
 * params, query, body, responses) whose JSON Schemas give both the validators and the types.
 */
import { attestJunit } from './operations/attest-junit.ts';
import { beginTrail } from './operations/begin-trail.ts';
import { getApproval } from './operations/get-approval.ts';
import { listApprovals } from './operations/list-approvals.ts';
import { listDeployments } from './operations/list-deployments.ts';
import { listEnvironments } from './operations/list-environments.ts';

export * from './contract.ts';
export * from './limits.ts';
export * from './shared.ts';
export { createValidator, fieldErrors, type FieldErrors, type OperationValidators, type Validation } from './validator.ts';
export { buildOpenApiDocument, type OpenApiOptions } from './openapi.ts';
export { attestJunit, AttestationName, JunitAttestationInput, TrailPathParams } from './operations/attest-junit.ts';
export { beginTrail, CreateTrailInput } from './operations/begin-trail.ts';
export { listEnvironments, Environment, EnvironmentType, environmentTypes } from './operations/list-environments.ts';
export { listDeployments, Deployment } from './operations/list-deployments.ts';
export { listApprovals } from './operations/list-approvals.ts';
export { getApproval } from './operations/get-approval.ts';
export { Approval, ApprovalListItem, approvalShape, approvalStates, CommitWithArtifacts, Review } from './operations/approval.ts';

/** The six operations of SPEC.md. */
export const specOperations = [attestJunit, beginTrail, listEnvironments, listApprovals, getApproval, listDeployments] as const;
