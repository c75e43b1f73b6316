/** Attestations read back one at a time: by id within an organisation (`kosli evaluate trail`), and by name on a trail (`kosli get attestation`). */
import type { Db } from '../database.ts';
import { attestationRowOf, attestationRowsQuery, type AttestationRow } from './attestations.ts';

export interface PlacedAttestation {
  attestation: AttestationRow;
  flow: string;
  trail: string;
}

/** The organisation's attestation of that id with its flow and trail names; undefined when it is another organisation's or none. */
export async function attestationOfOrganization(db: Db, organizationId: number, id: number): Promise<PlacedAttestation | undefined> {
  const row = await attestationRowsQuery(db)
    .innerJoin('trails', 'trails.id', 'attestations.trail_id')
    .innerJoin('flows', 'flows.id', 'trails.flow_id')
    .select(['flows.name as flow_name', 'trails.name as trail_name'])
    .where('flows.organization_id', '=', organizationId)
    .where('attestations.id', '=', id)
    .executeTakeFirst();
  return row ? { attestation: attestationRowOf(row), flow: row.flow_name, trail: row.trail_name } : undefined;
}

/** The newest `limit` attestations of `name` on the trail, oldest first. */
export async function attestationsNamed(db: Db, trailId: number, name: string, limit: number): Promise<AttestationRow[]> {
  const rows = await attestationRowsQuery(db)
    .where('attestations.trail_id', '=', trailId)
    .where('attestations.name', '=', name)
    .orderBy('attestations.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(attestationRowOf).reverse();
}

export const reads = { attestationOfOrganization, attestationsNamed };
export const writes = {};
