/**
 * @trailproof/schema: the API v2 contract. Every operation is a plain value (method, path,
 * params, query, body, responses) whose JSON Schemas give both the validators and the types.
 * This entry has the operations, the contract's types, limits, paths, patterns, the validator
 * and the OpenAPI document; the JSON Schemas of the API's bodies and resources, and the pieces
 * the operations are built from, are in `@trailproof/schema/schemas`.
 */
import { attestJunit } from './operations/attest-junit.ts';
import { beginTrail } from './operations/begin-trail.ts';
import { getApproval } from './operations/get-approval.ts';
import { listApprovals } from './operations/list-approvals.ts';
import { listDeployments } from './operations/list-deployments.ts';
import { listEnvironments } from './operations/list-environments.ts';

export * from './contract.ts';
export * from './limits.ts';
export * from './paths.ts';
export * from './patterns.ts';
export { GitCommitInfo, JunitResult, Nullable, RepoInfo, Sha256Hex, sharedSchemas, Url } from './shared.ts';
export { createValidator, fieldErrors, type FieldErrors, type OperationValidators, type Validation } from './validator.ts';
export { buildOpenApiDocument, type OpenApiOptions } from './openapi.ts';
export { attestJunit } from './operations/attest-junit.ts';
export { attestArtifact } from './operations/attest-artifact.ts';
export { attestGeneric } from './operations/attest-generic.ts';
export { attestPullRequest, gitProviders } from './operations/attest-pull-request.ts';
export { attestCustom } from './operations/attest-custom.ts';
export { attestSnyk } from './operations/attest-snyk.ts';
export { attestSonar } from './operations/attest-sonar.ts';
export { attestJira } from './operations/attest-jira.ts';
export { attestSystem } from './operations/attest-system.ts';
export { attestOverride } from './operations/attest-override.ts';
export { attestationTypeLimits } from './operations/attestation-type.ts';
export { createAttestationType } from './operations/create-attestation-type.ts';
export { getAttestationType } from './operations/get-attestation-type.ts';
export { listAttestationTypes } from './operations/list-attestation-types.ts';
export { archiveAttestationType } from './operations/archive-attestation-type.ts';
export { getAttestation } from './operations/get-attestation.ts';
export { getTrailAttestation } from './operations/get-trail-attestation.ts';
export { getArtifactAttestation } from './operations/get-artifact-attestation.ts';
export type { AttestationDetailBody, AttestationTypeBody, CustomEvaluationBody } from './operations/attestation-detail.ts';
export { AttestationName, attestationBody, attestationResponses, TrailPathParams } from './operations/attestation-input.ts';
export { beginTrail } from './operations/begin-trail.ts';
export { listEnvironments, defaultEnvironmentsPerPage, maxUnpagedEnvironments } from './operations/list-environments.ts';
export { listDeployments } from './operations/list-deployments.ts';
export { listApprovals } from './operations/list-approvals.ts';
export { getApproval } from './operations/get-approval.ts';
export { verifyEvidence, VerifyResult } from './operations/verify-evidence.ts';
export { getLogKey } from './operations/log-key.ts';
export { getLogCheckpoint } from './operations/log-checkpoint.ts';
export { listLogCheckpoints } from './operations/list-log-checkpoints.ts';
export { getLogInclusionProof } from './operations/log-inclusion-proof.ts';
export { getLogConsistencyProof } from './operations/log-consistency-proof.ts';
export { LogCheckpoint, Proof } from './operations/log.ts';
export { Approval, ApprovalListItem, approvalShape, approvalStates, CommitWithArtifacts, Review } from './operations/approval.ts';
export { putFlow } from './operations/put-flow.ts';
export { putFlowTemplate } from './operations/put-flow-template.ts';
export { listFlows } from './operations/list-flows.ts';
export { getFlow } from './operations/get-flow.ts';
export { Template } from './operations/flow.ts';
export { listTrails } from './operations/list-trails.ts';
export { listOrganizationTrails } from './operations/list-organization-trails.ts';
export { getTrail } from './operations/get-trail.ts';
export { getArtifactByFingerprint } from './operations/get-artifact-by-fingerprint.ts';
export { getArtifactsByCommit } from './operations/get-artifacts-by-commit.ts';
export { listArtifacts } from './operations/list-artifacts.ts';
export { search } from './operations/search.ts';
export { artifactStates } from './operations/artifact.ts';
export { downloadAttachment } from './operations/download-attachment.ts';
export type { AttestationViewBody, TrailEventBody, TrailSummaryBody } from './operations/trail.ts';
export { putEnvironment } from './operations/put-environment.ts';
export { getEnvironment } from './operations/get-environment.ts';
export { putPolicy } from './operations/put-policy.ts';
export { getPolicy } from './operations/get-policy.ts';
export { listPolicies } from './operations/list-policies.ts';
export { assertArtifact } from './operations/assert-artifact.ts';
export { attachPolicies, detachPolicies } from './operations/attach-policies.ts';
export { tagResource, taggedResourceTypes } from './operations/tag-resource.ts';
export { Policy, PolicyVersion } from './operations/policy.ts';
export { putAllowlist, listAllowlists } from './operations/allowlist.ts';
export { createControl, getControl, listControls } from './operations/control.ts';
export {
  maxReportArtifacts,
  reportAzureApps,
  reportCloudRun,
  reportDocker,
  reportECS,
  reportK8S,
  reportLambda,
  reportOperations,
  reportS3,
  reportServer,
  reportTypes,
  type ReportType,
} from './operations/environment-report.ts';
export { getSnapshot } from './operations/get-snapshot.ts';
export { getSnapshotByExpression } from './operations/get-snapshot-by-expression.ts';
export { listSnapshots } from './operations/list-snapshots.ts';
export { diffSnapshots } from './operations/diff-snapshots.ts';
export { listEnvironmentEvents, type EnvironmentEventType } from './operations/list-environment-events.ts';
export { requestApproval } from './operations/request-approval.ts';
export { reviewApproval } from './operations/review-approval.ts';
export { getApprovedArtifactCommit } from './operations/get-approved-artifact-commit.ts';
export { exportLog } from './operations/export-log.ts';

/** The six operations of SPEC.md. */
export const specOperations = [attestJunit, beginTrail, listEnvironments, listApprovals, getApproval, listDeployments] as const;
