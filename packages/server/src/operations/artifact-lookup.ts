/** Shared by the artifact reads: the flow (and trail) asked for, and artifacts as `get artifact` answers them. */
import { artifactFacts, artifactFactsUses, type ArtifactReadFacts } from '../domain/artifact-facts.ts';
import { notFound } from '../http/errors.ts';
import type { ViewContext } from '../http/links.ts';
import { artifactReadView } from '../http/views/artifacts.ts';
import { maxArtifactsRead, type FactsOfRows } from '../store/queries/artifact-reads.ts';
import type { ArtifactKey, ReadArtifactRow, StoreUses } from '../store/types.ts';
import { requireFlow, requireFlowUses, requireOrganization } from './lookup.ts';

export const findFlowArtifactsUses = [...requireFlowUses, 'findTrail', 'findFlowArtifacts', 'flowArtifactsWithFacts'] as const;

/**
 * The artifacts of the flow (and of its trail named `trail`) whose `key` starts with `prefix`,
 * newest first; a 404 for a missing flow or trail. The flow is looked up only when nothing is
 * found, as the artifacts' read names it: the common case is one query. With `factsOf`, what
 * `artifactViews` adds to those rows is read with them (`facts`, null when none was read).
 */
export async function findFlowArtifacts(
  store: StoreUses<typeof findFlowArtifactsUses>,
  params: { org: string; flow_name: string },
  match: { key: ArtifactKey; prefix: string; trail?: string; factsOf?: FactsOfRows },
): Promise<{ organization: { id: number }; rows: ReadArtifactRow[]; facts: ArtifactReadFacts | null }> {
  const organization = await requireOrganization(store, params.org);
  let trailId: number | undefined;
  if (match.trail !== undefined) {
    const found = await store.findTrail(organization.id, params.flow_name, match.trail);
    if (!found) await requireFlow(store, params.org, params.flow_name);
    if (!found) throw notFound(`Trail '${match.trail}' not found in flow '${params.flow_name}' of organization '${params.org}'`);
    trailId = found.id;
  }
  const rowsMatch = { key: match.key, prefix: match.prefix, trailId };
  const { rows, facts } = match.factsOf
    ? await store.flowArtifactsWithFacts(organization.id, params.flow_name, rowsMatch, maxArtifactsRead, match.factsOf)
    : { rows: await store.findFlowArtifacts(organization.id, params.flow_name, rowsMatch, maxArtifactsRead), facts: null };
  if (!rows.length) await requireFlow(store, params.org, params.flow_name);
  return { organization, rows, facts };
}

export const artifactViewsUses = artifactFactsUses;

/** Each row as one artifact of `get artifact`: its state, log index, and where it runs and ran. */
export async function artifactViews(
  store: StoreUses<typeof artifactViewsUses>,
  now: number,
  organizationId: number,
  rows: readonly ReadArtifactRow[],
  at: ViewContext,
  /** Their facts, when read with them (`findFlowArtifacts` with `factsOf`). */
  read: ArtifactReadFacts | null = null,
) {
  const fingerprints = [...new Set(rows.map((r) => r.fingerprint))];
  const { states, where, logIndexes } = await artifactFacts(store, now, organizationId, rows, { fingerprints, withLogIndexes: true, read: read ?? undefined });
  return rows.map((r, i) => artifactReadView(r, states[i]!, at, logIndexes.get(r.id) ?? null, where.get(r.fingerprint)!));
}
