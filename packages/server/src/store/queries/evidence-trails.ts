/**
 * The trail a piece of evidence (an attestation, an artifact) is stored on: found, with whether a
 * template evaluates it, or made on first use as Kosli makes it ("Attesting without a template").
 */
import { compiledOnce } from '../compiled-once.ts';
import type { Db } from '../database.ts';
import { inTransaction } from '../transactions.ts';
import { ensureFlow, findFlow } from './flows.ts';
import { upsertTrail, type TrailInput } from './trails.ts';

/** The trail evidence is stored on: its id, flow, latest time, and whether it is evaluated against a template. */
export interface EvidenceTrail {
  id: number;
  flowId: number;
  lastModifiedAt: number;
  templated: boolean;
}

const evidenceTrailOf = compiledOnce((db, v: { organizationId: number; flow: string; trail: string }) =>
  db
    .selectFrom('trails')
    .innerJoin('flows', 'flows.id', 'trails.flow_id')
    .select(['trails.id', 'trails.flow_id', 'trails.last_modified_at', 'trails.template_sha256', 'flows.template_sha256 as flow_template_sha256'])
    .where('flows.organization_id', '=', v.organizationId)
    .where('flows.name', '=', v.flow)
    .where('trails.name', '=', v.trail),
);

/** How a trail that does not exist is made on first use: begun with this input (its commit, repository, origin), by this token. */
export interface FirstUse {
  input: Omit<TrailInput, 'name'>;
  createdBy: string | null;
  at: number;
}

/** The trail to store evidence on (in the caller's transaction), or which of flow and trail does not exist. */
export async function trailForEvidence(
  db: Db,
  where: { organizationId: number; flow: string; trail: string },
): Promise<EvidenceTrail | { missing: 'flow' | 'trail' }> {
  const [row] = await evidenceTrailOf(db, where);
  if (row) {
    const templated = (row.template_sha256 ?? row.flow_template_sha256) !== null;
    return { id: Number(row.id), flowId: Number(row.flow_id), lastModifiedAt: Number(row.last_modified_at), templated };
  }
  return { missing: (await findFlow(db, where.organizationId, where.flow)) ? 'trail' : 'flow' };
}

/**
 * Makes the flow (without a template) and the trail (begun, with its chain record) that evidence
 * is stored on when they do not exist, as Kosli sets them up for an attestation to a trail not
 * begun; leaves existing ones alone. Says whether the trail was made.
 */
export function beginOnFirstUse(db: Db, where: { organizationId: number; flow: string; trail: string }, firstUse: FirstUse): Promise<{ created: boolean }> {
  return inTransaction(db, async (trx) => {
    if (!('missing' in (await trailForEvidence(trx, where)))) return { created: false };
    const flow = await ensureFlow(trx, where.organizationId, where.flow, firstUse.at);
    return upsertTrail(trx, Number(flow.id), { ...firstUse.input, name: where.trail }, null, firstUse.at, firstUse.createdBy);
  });
}

export const reads = {};
export const writes = { beginOnFirstUse };
