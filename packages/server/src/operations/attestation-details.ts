/** Attestations read back with what the trail's view says of them: whether each is the latest of its name, and its leaf in the log. */
import type { AttestationDetailBody } from '@trailproof/schema';
import { countingAttestations } from '../domain/compliance.ts';
import type { ViewContext } from '../http/links.ts';
import { attestationDetail } from '../http/views/attestation-detail.ts';
import type { AttestationRow, StoreUses } from '../store/types.ts';

export const attestationDetailsUses = ['attestationFactsOfTrails', 'logIndexesOf'] as const;

/** `attestations` (all on the trail `trailId`) as `kosli get attestation` reads them. */
export async function attestationDetails(
  store: StoreUses<typeof attestationDetailsUses>,
  organizationId: number,
  place: { trailId: number; flow: string; trail: string },
  attestations: readonly AttestationRow[],
  at: ViewContext,
): Promise<AttestationDetailBody[]> {
  const [facts, leaves] = await Promise.all([
    store.attestationFactsOfTrails([place.trailId]),
    store.logIndexesOf(
      organizationId,
      'attestations',
      attestations.map((a) => a.id),
    ),
  ]);
  const counting = new Set([...countingAttestations(facts).values()].map((a) => a.id));
  return attestations.map((a) =>
    attestationDetail(a, { flow: place.flow, trail: place.trail, latest: counting.has(a.id), logIndex: leaves.get(a.id) ?? null }, at),
  );
}
