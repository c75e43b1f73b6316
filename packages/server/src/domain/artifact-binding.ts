/**
 * Which attestations of a trail are about which of its artifacts: not stored, but a pure function
 * of both rows (both immutable evidence), so that it holds in either order of arrival.
 */
import type { ArtifactRow } from '../store/types.ts';
import type { ArtifactState, ComplianceStatus } from './compliance.ts';

/** What binding needs to know of an attestation of the same trail. */
export interface BindingFacts {
  /** The fingerprint it carries, if any. */
  fingerprint: string | null | undefined;
  /** The template artifacts it names (`backend` of `backend.unit-tests`, `target_artifacts`). */
  targets: readonly string[];
  /** Its commit (`git_commit_info.sha1`), else the trail's; null when neither is known. */
  commit: string | null;
}

/**
 * Whether the attestation is about this artifact of its trail: by fingerprint when it carries one,
 * else by template name and commit (Kosli's docs, tutorials/attest_custom.md: every artifact of the
 * name and commit; a commit unknown on either side does not tell them apart).
 */
export function bindsTo(a: BindingFacts, artifact: Pick<ArtifactRow, 'fingerprint' | 'templateReferenceName' | 'gitCommit'>): boolean {
  if (a.fingerprint) return a.fingerprint === artifact.fingerprint;
  if (!a.targets.includes(artifact.templateReferenceName)) return false;
  return a.commit === null || artifact.gitCommit === null || a.commit === artifact.gitCommit;
}

/** An artifact's state in its trail's compliance (its name's entry); COMPLIANT when the trail says nothing of it. */
export const artifactState = (compliance: ComplianceStatus, artifact: Pick<ArtifactRow, 'templateReferenceName'>): ArtifactState => {
  const status = compliance.artifacts_statuses[artifact.templateReferenceName]?.status ?? 'COMPLIANT';
  return status === 'MISSING' ? 'INCOMPLETE' : status;
};
