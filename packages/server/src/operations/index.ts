/** The default plugins: the six operations of SPEC.md, the evidence model, verification and the transparency log. */
import { verifyEvidencePlugin } from './verify-evidence.ts';
import { getLogKeyPlugin } from './log-key.ts';
import { getLogCheckpointPlugin } from './log-checkpoint.ts';
import { listLogCheckpointsPlugin } from './list-log-checkpoints.ts';
import { getLogInclusionProofPlugin } from './log-inclusion-proof.ts';
import { getLogConsistencyProofPlugin } from './log-consistency-proof.ts';
import { exportLogPlugin } from './export-log.ts';
import type { Plugin } from '../plugin.ts';
import { attestJunitPlugin } from './attest-junit.ts';
import { attestGenericPlugin } from './attest-generic.ts';
import { attestArtifactPlugin } from './attest-artifact.ts';
import { attestPullRequestPlugin } from './attest-pull-request.ts';
import { attestCustomPlugin } from './attest-custom.ts';
import { attestSnykPlugin } from './attest-snyk.ts';
import { attestSonarPlugin } from './attest-sonar.ts';
import { attestJiraPlugin } from './attest-jira.ts';
import { attestSystemPlugin } from './attest-system.ts';
import { attestOverridePlugin } from './attest-override.ts';
import { createAttestationTypePlugin } from './create-attestation-type.ts';
import { getAttestationTypePlugin } from './get-attestation-type.ts';
import { listAttestationTypesPlugin } from './list-attestation-types.ts';
import { archiveAttestationTypePlugin } from './archive-attestation-type.ts';
import { getAttestationPlugin } from './get-attestation.ts';
import { getTrailAttestationPlugin } from './get-trail-attestation.ts';
import { getArtifactAttestationPlugin } from './get-artifact-attestation.ts';
import { beginTrailPlugin } from './begin-trail.ts';
import { getApprovalPlugin } from './get-approval.ts';
import { listApprovalsPlugin } from './list-approvals.ts';
import { listDeploymentsPlugin } from './list-deployments.ts';
import { listEnvironmentsPlugin } from './list-environments.ts';
import { putFlowPlugin } from './put-flow.ts';
import { putFlowTemplatePlugin } from './put-flow-template.ts';
import { listFlowsPlugin } from './list-flows.ts';
import { getFlowPlugin } from './get-flow.ts';
import { listTrailsPlugin } from './list-trails.ts';
import { listOrganizationTrailsPlugin } from './list-organization-trails.ts';
import { getTrailPlugin } from './get-trail.ts';
import { downloadAttachmentPlugin } from './download-attachment.ts';
import { putEnvironmentPlugin } from './put-environment.ts';
import { getEnvironmentPlugin } from './get-environment.ts';
import { environmentReportPlugins } from './environment-report.ts';
import { getSnapshotPlugin } from './get-snapshot.ts';
import { getSnapshotByExpressionPlugin } from './get-snapshot-by-expression.ts';
import { listSnapshotsPlugin } from './list-snapshots.ts';
import { diffSnapshotsPlugin } from './diff-snapshots.ts';
import { listEnvironmentEventsPlugin } from './list-environment-events.ts';
import { requestApprovalPlugin } from './request-approval.ts';
import { reviewApprovalPlugin } from './review-approval.ts';
import { getApprovedArtifactCommitPlugin } from './get-approved-artifact-commit.ts';
import { getArtifactByFingerprintPlugin } from './get-artifact-by-fingerprint.ts';
import { getArtifactsByCommitPlugin } from './get-artifacts-by-commit.ts';
import { listArtifactsPlugin } from './list-artifacts.ts';
import { searchPlugin } from './search.ts';
import { putPolicyPlugin } from './put-policy.ts';
import { getPolicyPlugin } from './get-policy.ts';
import { listPoliciesPlugin } from './list-policies.ts';
import { assertArtifactPlugin } from './assert-artifact.ts';
import { attachPoliciesPlugin, detachPoliciesPlugin } from './attach-policies.ts';
import { tagResourcePlugin } from './tag-resource.ts';
import { putAllowlistPlugin } from './put-allowlist.ts';
import { listAllowlistsPlugin } from './list-allowlists.ts';
import { createControlPlugin } from './create-control.ts';
import { getControlPlugin } from './get-control.ts';
import { listControlsPlugin } from './list-controls.ts';

/** SPEC.md's six. */
const specPlugins = { attestJunitPlugin, beginTrailPlugin, listEnvironmentsPlugin, listApprovalsPlugin, getApprovalPlugin, listDeploymentsPlugin };

/** The evidence model: flows and templates, attestations of other types and custom types, reading trails and attestations back, environments, their reports and events, writing approvals, policies and tags. */
const evidence = {
  attestGenericPlugin,
  attestArtifactPlugin,
  attestPullRequestPlugin,
  attestCustomPlugin,
  attestSnykPlugin,
  attestSonarPlugin,
  attestJiraPlugin,
  attestSystemPlugin,
  attestOverridePlugin,
  createAttestationTypePlugin,
  getAttestationTypePlugin,
  listAttestationTypesPlugin,
  archiveAttestationTypePlugin,
  getAttestationPlugin,
  getTrailAttestationPlugin,
  getArtifactAttestationPlugin,
  putFlowPlugin,
  putFlowTemplatePlugin,
  listFlowsPlugin,
  getFlowPlugin,
  listTrailsPlugin,
  listOrganizationTrailsPlugin,
  getTrailPlugin,
  downloadAttachmentPlugin,
  putEnvironmentPlugin,
  getEnvironmentPlugin,
  environmentReportPlugins,
  getSnapshotPlugin,
  getSnapshotByExpressionPlugin,
  listSnapshotsPlugin,
  diffSnapshotsPlugin,
  listEnvironmentEventsPlugin,
  requestApprovalPlugin,
  reviewApprovalPlugin,
  getApprovedArtifactCommitPlugin,
  getArtifactByFingerprintPlugin,
  getArtifactsByCommitPlugin,
  listArtifactsPlugin,
  searchPlugin,
  putPolicyPlugin,
  getPolicyPlugin,
  listPoliciesPlugin,
  assertArtifactPlugin,
  attachPoliciesPlugin,
  detachPoliciesPlugin,
  tagResourcePlugin,
  putAllowlistPlugin,
  listAllowlistsPlugin,
  createControlPlugin,
  getControlPlugin,
  listControlsPlugin,
};

/** The transparency log (our extension): its key, checkpoints and proofs. */
const log = {
  getLogKeyPlugin,
  getLogCheckpointPlugin,
  listLogCheckpointsPlugin,
  getLogInclusionProofPlugin,
  getLogConsistencyProofPlugin,
  exportLogPlugin,
};

/**
 * The API's own plugins by name, in the order they are routed: plugin-kit exports it, to compose a
 * server of some of them. Tamper evidence (verifying the hash chain) is our extension too.
 */
export const ownPlugins = { ...specPlugins, ...evidence, verifyEvidencePlugin, ...log };

/** The plugins of a group, in order (the environment reports are one entry of eight). */
const pluginsOf = (group: object): readonly Plugin<any>[] => Object.values(group).flat();

export const evidencePlugins = pluginsOf(evidence);
export const logPlugins = pluginsOf(log);
export const defaultPlugins = pluginsOf(ownPlugins);
