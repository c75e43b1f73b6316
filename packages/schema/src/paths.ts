/**
 * Every operation's path below `/api/v2`, with `{param}` placeholders. A module of plain strings,
 * without TypeBox, so a client (the action's bundle) can import the paths for a few bytes.
 */
export const paths = {
  attestArtifact: '/artifacts/{org}/{flow_name}',
  attestGeneric: '/attestations/{org}/{flow_name}/trail/{trail_name}/generic',
  attestJunit: '/attestations/{org}/{flow_name}/trail/{trail_name}/junit',
  attestPullRequest: '/attestations/{org}/{flow_name}/trail/{trail_name}/pull_request',
  attestCustom: '/attestations/{org}/{flow_name}/trail/{trail_name}/custom',
  getAttestation: '/attestations/{org}',
  getTrailAttestation: '/attestations/{org}/{flow_name}/trail/{trail_name}/{attestation_name}',
  createAttestationType: '/custom-attestation-types/{org}',
  listAttestationTypes: '/custom-attestation-types/{org}',
  getAttestationType: '/custom-attestation-types/{org}/{type_name}',
  archiveAttestationType: '/custom-attestation-types/{org}/{type_name}/archive',
  beginTrail: '/trails/{org}/{flow_name}',
  downloadAttachment: '/trails/{org}/{flow_name}/{trail_name}/attestations/{attestation_id}/attachment',
  getApproval: '/approvals/{org}/{flow_name}/{approval_number}',
  getApprovedArtifactCommit: '/approvals/{org}/{flow_name}/artifact-commit/{env_name}',
  getEnvironment: '/environments/{org}/{env_name}',
  getFlow: '/flows/{org}/{flow_name}',
  getSnapshot: '/environments/{org}/{env_name}/snapshots/{snapshot_index}',
  getSnapshotByExpression: '/snapshots/{org}/{env_name}/{snapshot_expression}',
  listSnapshots: '/snapshots/{org}/{env_name}',
  diffSnapshots: '/env-diff/{org}',
  getTrail: '/trails/{org}/{flow_name}/{trail_name}',
  listApprovals: '/approvals/{org}/{flow_name}',
  listDeployments: '/deployments/{org}',
  listEnvironmentEvents: '/environments/{org}/{env_name}/events',
  listEnvironments: '/environments/{org}',
  listFlows: '/flows/{org}',
  listTrails: '/trails/{org}/{flow_name}',
  listOrganizationTrails: '/trails/{org}',
  getArtifactByFingerprint: '/artifacts/{org}/{flow_name}/fingerprint/{fingerprint}',
  getArtifactsByCommit: '/artifacts/{org}/{flow_name}/commit_sha/{commit_sha}',
  listArtifacts: '/artifacts/{org}',
  search: '/search/{org}/sha/{search_value}',
  putEnvironment: '/environments/{org}',
  putPolicy: '/policies/{org}',
  getPolicy: '/policies/{org}/{policy_name}',
  listPolicies: '/policies/{org}',
  attachPolicies: '/environments/{org}/{env_name}/policies',
  detachPolicies: '/environments/{org}/{env_name}/policies',
  tagResource: '/tags/{org}/{resource_type}/{resource_name}',
  putAllowlist: '/allowlists/{org}/{env_name}',
  listAllowlists: '/allowlists/{org}',
  createControl: '/controls/{org}',
  getControl: '/controls/{org}/{identifier}',
  listControls: '/controls/{org}',
  putFlowTemplate: '/flows/{org}/template_file',
  putFlow: '/flows/{org}',
  requestApproval: '/approvals/{org}/{flow_name}',
  reviewApproval: '/approvals/{org}/{flow_name}/{approval_number}',
  verifyEvidence: '/verify/{org}',
  getLogKey: '/log/{org}/key',
  getLogCheckpoint: '/log/{org}/checkpoint',
  listLogCheckpoints: '/log/{org}/checkpoints',
  getLogInclusionProof: '/log/{org}/proof/inclusion',
  getLogConsistencyProof: '/log/{org}/proof/consistency',
  exportLog: '/log/{org}/export',
} as const;

/** `template` with each `{param}` replaced by its value, URL-encoded: the address of one call. */
export function fillPath(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`No value for {${name}} in ${template}`);
    return encodeURIComponent(String(value));
  });
}
