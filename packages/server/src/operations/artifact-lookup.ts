/** Shared by the artifact reads: the flow (and trail) asked for, and artifacts as `get artifact` answers them. */
import { artifactStates, artifactStatesUses, whereaboutsOfFingerprints, whereaboutsUses } from '../domain/artifact-facts.ts';
import { notFound } from '../http/errors.ts';
import type { ViewContext } from '../http/links.ts';
import { artifactView } from '../http/views/artifacts.ts';
import type { ArtifactRow, StoreUses } from '../store/types.ts';
import { requireFlow, requireFlowUses } from './lookup.ts';

export const requireFlowAndTrailUses = [...requireFlowUses, 'findTrail'] as const;

/** The flow, and the id of its trail named `trail` when one is: a 404 for either missing. */
export async function requireFlowAndTrail(store: StoreUses<typeof requireFlowAndTrailUses>, org: string, flowName: string, trail: string | undefined) {
  const { organization, flow } = await requireFlow(store, org, flowName);
  if (trail === undefined) return { organization, flowId: Number(flow.id), trailId: undefined };
  const found = await store.findTrail(organization.id, flowName, trail);
  if (!found) throw notFound(`Trail '${trail}' not found in flow '${flowName}' of organization '${org}'`);
  return { organization, flowId: Number(flow.id), trailId: found.id };
}

export const artifactViewsUses = [...artifactStatesUses, ...whereaboutsUses, 'logIndexesOf'] as const;

/** Each row as one artifact of `get artifact`: its state, log index, and where it runs and ran. */
export async function artifactViews(
  store: StoreUses<typeof artifactViewsUses>,
  now: number,
  organizationId: number,
  rows: readonly ArtifactRow[],
  at: ViewContext,
) {
  const [states, where, leaves] = await Promise.all([
    artifactStates(store, now, rows),
    whereaboutsOfFingerprints(store, organizationId, [...new Set(rows.map((r) => r.fingerprint))]),
    store.logIndexesOf(
      organizationId,
      'artifacts',
      rows.map((r) => r.id),
    ),
  ]);
  return rows.map((r, i) => artifactView(r, states[i]!, at, leaves.get(r.id) ?? null, where.get(r.fingerprint)!));
}
