import { attestOverride, type DataOf } from '@trailproof/schema';
import { evidenceType, overridePrefix } from '../domain/compliance.ts';
import { badRequest, notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { targetArtifactsOf } from '../store/queries/attestation-facts.ts';
import type { AttestationRow } from '../store/types.ts';
import { artifactNotInTrail, attestationAppend } from './attest.ts';
import { attestedBy } from './attest-request.ts';
import { requireTrail, requireTrailUses, trailNotFound } from './lookup.ts';

/** Attestations of the name looked through for the one overridden (the newest first). */
const lookedThrough = 100;

/** Whether `a` is in the override's scope: for the same template artifact, else the same fingerprint, else trail-level. */
function sameScope(a: AttestationRow, targets: readonly string[], fingerprint: string | null): boolean {
  const theirs = targetArtifactsOf(a.data);
  if (targets.length) return theirs.some((t) => targets.includes(t));
  if (fingerprint) return theirs.length === 0 && a.artifactFingerprint === fingerprint;
  return theirs.length === 0 && a.artifactFingerprint === null;
}

/** The latest of `named` (oldest first) in the override's scope, of the type it says; a 404 or 400 otherwise. */
function overridden(named: AttestationRow[], data: DataOf<typeof attestOverride>, trail: string): AttestationRow {
  const original = named.reverse().find((a) => sameScope(a, targetArtifactsOf(data), data.artifact_fingerprint ?? null));
  if (!original) throw notFound(`Attestation '${data.attestation_name}' not found in trail '${trail}': nothing to override`);
  if (evidenceType(original.type) !== data.original_attestation_type) {
    throw badRequest(`Attestation '${data.attestation_name}' is of type '${evidenceType(original.type)}', not '${data.original_attestation_type}'`, {
      original_attestation_type: `must be '${evidenceType(original.type)}'`,
    });
  }
  return original;
}

/**
 * POST /attestations/{org}/{flow_name}/trail/{trail_name}/override (`kosli attest override`): a new
 * verdict for the latest attestation of the name in its scope, stored as evidence of its own
 * (`override:<type>`, naming the id it overrode) so both stay in the chain; the override counts in its place.
 */
export const attestOverridePlugin = definePlugin({
  operation: attestOverride,
  store: [...requireTrailUses, 'dialect'],
  transaction: ['lockForUpdate', 'attestationsNamed', 'appendAttestation'],
  async handler(request) {
    const { params, data, store } = request;
    const { organization, trail } = await requireTrail(store, params.org, params.flow_name, params.trail_name);
    // Found and overridden in one transaction, the trail locked: an attestation of the name stored in between would otherwise be the latest, overridden unseen.
    const stored = await store.transaction(async (tx) => {
      await tx.lockForUpdate(store.dialect, 'trails', trail.id);
      const original = overridden(await tx.attestationsNamed(trail.id, data.attestation_name, lookedThrough), data, params.trail_name);
      const record = { ...data, overridden_attestation_id: String(original.id), overridden_compliance: original.compliant };
      const override = {
        ...attestedBy(request),
        type: `${overridePrefix}${data.original_attestation_type}`,
        data: record,
        compliant: data.new_compliance_status,
      };
      return tx.appendAttestation(attestationAppend(organization.id, override));
    });
    if ('missing' in stored) {
      if (stored.missing === 'artifact') throw artifactNotInTrail(params.org, params.flow_name, params.trail_name, data.artifact_fingerprint!);
      throw trailNotFound(params.org, params.flow_name, params.trail_name, stored.missing);
    }
    return { status: 201, body: `attestation '${data.attestation_name}' was overridden in trail '${params.trail_name}'` };
  },
});
