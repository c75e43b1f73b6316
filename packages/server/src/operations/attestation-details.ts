/** Attestations read back with what the trail's view says of them: whether each is the latest of its name, and its leaf in the log. */
import type { AttestationDetailBody } from '@trailproof/schema';
import { countingAttestations } from '../domain/compliance.ts';
import type { ViewContext } from '../http/links.ts';
import { attestationDetail } from '../http/views/attestation-detail.ts';
import type { AttestationFactsRow, AttestationRow, StoreUses } from '../store/types.ts';

export const attestationDetailsUses = ['attestationFactsNamed', 'logIndexesOf'] as const;
type DetailsStore = StoreUses<typeof attestationDetailsUses>;

/** Later attestations of a name read at a time while one asked for may still count. */
const factsPage = 200;

/** `attestations` (all on the trail `trailId`) as `kosli get attestation` reads them. */
export async function attestationDetails(
  store: DetailsStore,
  organizationId: number,
  place: { trailId: number; flow: string; trail: string },
  attestations: readonly AttestationRow[],
  at: ViewContext,
): Promise<AttestationDetailBody[]> {
  const ids = attestations.map((a) => a.id);
  const [counting, leaves] = await Promise.all([stillCounting(store, place.trailId, attestations), store.logIndexesOf(organizationId, 'attestations', ids)]);
  return attestations.map((a) =>
    attestationDetail(a, { flow: place.flow, trail: place.trail, latest: counting.has(a.id), logIndex: leaves.get(a.id) ?? null }, at),
  );
}

/**
 * The ids of `attestations` that count on their trail (as its view says): only a later one of the
 * same name can take an attestation's place, so those are read, from the earliest asked for on, a
 * page at a time, and no further once each asked for has been outranked (that is final).
 */
async function stillCounting(store: DetailsStore, trailId: number, attestations: readonly AttestationRow[]): Promise<Set<number>> {
  const counting = new Set<number>();
  for (const name of new Set(attestations.map((a) => a.name))) {
    const asked = attestations.filter((a) => a.name === name).map((a) => a.id);
    const facts: AttestationFactsRow[] = [];
    let latest = new Set<number>();
    for (let fromId = Math.min(...asked); ; ) {
      const page = await store.attestationFactsNamed({ trailId, name, fromId, limit: factsPage });
      facts.push(...page);
      latest = new Set([...countingAttestations(facts).values()].map((a) => a.id));
      if (page.length < factsPage || !asked.some((id) => latest.has(id))) break;
      fromId = page.at(-1)!.id + 1;
    }
    for (const id of asked) if (latest.has(id)) counting.add(id);
  }
  return counting;
}
