/** Storing an attestation: the one way every attestation plugin (ours or a third party's) records evidence. */
import { notFound } from '../http/errors.ts';
import type { UploadedFile } from '../plugin.ts';
import { targetArtifactsOf } from '../store/queries/attestation-facts.ts';
import type { FirstUse } from '../store/queries/evidence-trails.ts';
import type { AttestationAppend, StoreUses } from '../store/types.ts';
import { requireOrganization, requireOrganizationUses, trailNotFound } from './lookup.ts';

/** The queries `storeAttestation` uses, for a plugin's `store` list. */
export const storeAttestationUses = [...requireOrganizationUses, 'appendAttestation', 'findFlow', 'beginOnFirstUse'] as const;

/** What an attestation says of its trail, for a trail made on its first use. */
type TrailFacts = { git_commit_info?: FirstUse['input']['git_commit_info']; repo_info?: FirstUse['input']['repo_info']; origin_url?: string | null };

export interface AttestationToStore {
  org: string;
  flow: string;
  trail: string;
  /** Attestation name; a later one with the same name supersedes it for compliance. */
  name: string;
  /** Attestation type (`junit`, `generic`, ...). */
  type: string;
  /** The validated input, stored as it was sent. */
  data: { artifact_fingerprint?: string | null } & TrailFacts;
  attachment?: UploadedFile;
  compliant: boolean;
  /** The id of the caller's token (the handler's `principal.tokenId`): kept as who stored it. */
  createdBy: string;
  now: number;
}

/** Kosli's refusal of an attestation to an artifact the trail does not have (cmd/kosli/attestJunit_test.go). */
export const artifactNotInTrail = (org: string, flow: string, trail: string, fingerprint: string) =>
  notFound(`Artifact with fingerprint ${fingerprint} does not exist in trail "${trail}" of flow "${flow}" belonging to organization "${org}"`);

/**
 * Stores an attestation, its attachment content-addressed, and its hash-chain record, in one
 * transaction. A flow or trail that does not exist is made first, without a template (Kosli's
 * "attesting without a template"). One that names only a fingerprint, on a trail a template
 * evaluates that has no artifact with it, is refused (404 naming the fingerprint) and nothing is made.
 */
export async function storeAttestation(store: StoreUses<typeof storeAttestationUses>, a: AttestationToStore): Promise<void> {
  const organization = await requireOrganization(store, a.org);
  const fingerprint = a.data.artifact_fingerprint ?? null;
  const append = () => store.appendAttestation(attestationAppend(organization.id, a));
  let stored = await append();
  if ('missing' in stored && stored.missing !== 'artifact') {
    // A trail made in a flow with a template would have no artifact with the fingerprint: refused before anything is made.
    if (fingerprint !== null && targetArtifactsOf(a.data).length === 0 && (await store.findFlow(organization.id, a.flow))?.templateSha256)
      throw artifactNotInTrail(a.org, a.flow, a.trail, fingerprint);
    await beginTrailOnFirstUse(store, organization.id, a, {
      git_commit_info: a.data.git_commit_info ?? null,
      repo_info: a.data.repo_info ?? null,
      origin_url: a.data.origin_url ?? null,
    });
    stored = await append();
  }
  if ('missing' in stored) {
    if (stored.missing === 'artifact') throw artifactNotInTrail(a.org, a.flow, a.trail, fingerprint!);
    throw trailNotFound(a.org, a.flow, a.trail, stored.missing);
  }
}

/** The store's row of `a` in the organisation: its data as JSON text, its attachment by content. */
export function attestationAppend(organizationId: number, a: AttestationToStore): AttestationAppend {
  const fingerprint = a.data.artifact_fingerprint ?? null;
  return {
    organizationId,
    flow: a.flow,
    trail: a.trail,
    name: a.name,
    type: a.type,
    dataJson: JSON.stringify(a.data),
    artifactFingerprint: fingerprint,
    needsArtifact: fingerprint !== null && targetArtifactsOf(a.data).length === 0,
    compliant: a.compliant,
    createdBy: a.createdBy,
    at: a.now,
    attachment: a.attachment ? { content: a.attachment.buffer, name: a.attachment.originalName } : null,
  };
}

/** Makes the flow and trail `a` goes to when they do not exist (Kosli's first use), begun with what it says of its commit and repository. */
export function beginTrailOnFirstUse(
  store: StoreUses<['beginOnFirstUse']>,
  organizationId: number,
  a: { flow: string; trail: string; createdBy: string; now: number },
  input: FirstUse['input'],
): Promise<{ created: boolean }> {
  return store.beginOnFirstUse({ organizationId, flow: a.flow, trail: a.trail }, { input, createdBy: a.createdBy, at: a.now });
}
