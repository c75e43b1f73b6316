/**
 * `@trailproof/schema/schemas`: the JSON Schemas (TypeBox values, types of the same names) of the
 * API's bodies and resources, and the pieces its operations are built from: for a client that
 * validates what it sends or receives, and a plugin that defines an operation of its own.
 */
export * from './shared.ts';
export * from './patterns.ts';
export { JunitAttestationInput } from './operations/attest-junit.ts';
export { GenericAttestationInput } from './operations/attest-generic.ts';
export { AttestationName, attestationBody, attestationResponses, commonAttestationFields, TrailPathParams } from './operations/attestation-input.ts';
export { CreateTrailInput } from './operations/begin-trail.ts';
export { Environment, EnvironmentType, environmentTypes } from './operations/list-environments.ts';
export { Deployment } from './operations/list-deployments.ts';
export { VerifyResult } from './operations/verify-evidence.ts';
export { Approval, ApprovalListItem, approvalShape, approvalStates, CommitWithArtifacts, Review } from './operations/approval.ts';
export { CreateFlowInput, Flow, flowVisibilities, LegacyCreateFlowInput, Template, TemplateArtifact, TemplateAttestation } from './operations/flow.ts';
export { ArtifactStatus, Attachment, AttestationStatus, AttestationView, JunitTotals, Trail, TrailComplianceStatus, TrailSummary } from './operations/trail.ts';
export { Artifact, ArtifactEnvironment, ArtifactEvent, ArtifactListItem } from './operations/artifact.ts';
export { SearchArtifact, SearchResolved } from './operations/search.ts';
export { EnvironmentInput } from './operations/put-environment.ts';
export { maxReportArtifacts, ReportResult } from './operations/environment-report.ts';
export { Snapshot, SnapshotArtifact } from './operations/get-snapshot.ts';
export { EnvironmentEvent, environmentEventTypes } from './operations/list-environment-events.ts';
export { ApprovalInput, maxApprovalCommits, ReviewInput } from './operations/request-approval.ts';
