/** Attestations read back one at a time: by id within an organisation (`kosli evaluate trail`), and by name on a trail (`kosli get attestation`). */
import { compiledOnce } from '../compiled-once.ts';
import { sql } from 'kysely';
import { isPostgres, type Db } from '../database.ts';
import { attestationRowOf, attestationRowsQuery, type AttestationRow } from './attestations.ts';

export interface PlacedAttestation {
  attestation: AttestationRow;
  flow: string;
  trail: string;
}

/** The organisation's attestation of that id with its flow and trail names; undefined when it is another organisation's or none. */
export async function attestationOfOrganization(db: Db, organizationId: number, id: number): Promise<PlacedAttestation | undefined> {
  const [row] = await placedAttestation(db, { organizationId, id });
  return row ? { attestation: attestationRowOf(row), flow: row.flow_name, trail: row.trail_name } : undefined;
}

// Compiled once: `kosli evaluate trail` reads each attestation of a trail by id, and building the join anew cost more than its statement.
const placedAttestation = compiledOnce((db, v: { organizationId: number; id: number }) =>
  attestationRowsQuery(db)
    .innerJoin('trails', 'trails.id', 'attestations.trail_id')
    .innerJoin('flows', 'flows.id', 'trails.flow_id')
    .select(['flows.name as flow_name', 'trails.name as trail_name'])
    .where('flows.organization_id', '=', v.organizationId)
    .where('attestations.id', '=', v.id),
);

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

/**
 * An attestation as a page shows it by its kind, without its whole data: the fields a kind's view
 * reads (`type_name`, `git_provider`, `pull_requests`, `evaluation`, `junit_results`) and the
 * first characters of its `attestation_data` as stored JSON text, with that text's length.
 */
export interface AttestationGlance {
  id: number;
  type: string;
  compliant: boolean;
  createdAt: number;
  data: Record<string, unknown> & { attestation_data_text?: string; attestation_data_length?: number };
}

/** The fields of the data a glance reads whole (each bounded by the attestation's own limits): those the console's kind views read. */
const glancedFields = [
  'type_name',
  'git_provider',
  'pull_requests',
  'evaluation',
  'junit_results',
  'snyk_results',
  'sonar_results',
  'jira_results',
  'control',
  'reason',
  'new_compliance_status',
  'original_attestation_type',
  'overridden_attestation_id',
  'overridden_compliance',
  'sbom_verification',
] as const;

/**
 * The glanced fields and the start of `attestation_data` as one JSON object a row: on PostgreSQL
 * the data is cast to `json` once (a cast a field parsed the whole document again for each), on
 * SQLite its JSON functions take the stored text as it is.
 */
function glanceOf(postgres: boolean, shownChars: number) {
  if (postgres) {
    const pairs = glancedFields.map((name) => sql`${sql.lit(name)}, d -> ${sql.lit(name)}`);
    return sql<string>`(select json_build_object(${sql.join(pairs)}, 'document_text', substr((d -> 'attestation_data')::text, 1, ${shownChars}), 'document_length', length((d -> 'attestation_data')::text)) from (select a.data::json as d) as x)::text`;
  }
  const pairs = glancedFields.map((name) => sql`${sql.lit(name)}, a.data -> ${sql.lit(`$.${name}`)}`);
  const document = sql`a.data -> '$.attestation_data'`;
  return sql<string>`json_object(${sql.join(pairs)}, 'document_text', substr(${document}, 1, ${shownChars}), 'document_length', length(${document}))`;
}

/**
 * Glances at the organisation's attestations of these ids (of other organisations none): the data
 * is looked into by the database (a reader thread with SQLite), so a document of hundreds of
 * kilobytes is neither copied out nor parsed on the event loop; `attestation_data` only as its
 * first `shownChars` characters.
 */
export async function attestationGlances(db: Db, organizationId: number, ids: readonly number[], shownChars: number): Promise<AttestationGlance[]> {
  if (!ids.length) return [];
  const postgres = isPostgres(db);
  const rows = await db
    .selectFrom('attestations as a')
    .innerJoin('trails as t', 't.id', 'a.trail_id')
    .innerJoin('flows as f', 'f.id', 't.flow_id')
    .select(['a.id', 'a.type', 'a.compliant', 'a.created_at', glanceOf(postgres, shownChars).as('glance')])
    .where('f.organization_id', '=', organizationId)
    .where('a.id', 'in', [...ids])
    .execute();
  return rows.map((r) => {
    const glance = JSON.parse(r.glance) as Record<string, unknown>;
    const data: AttestationGlance['data'] = {};
    for (const name of glancedFields) if (glance[name] !== null && glance[name] !== undefined) data[name] = glance[name];
    if (typeof glance.document_text === 'string') {
      data.attestation_data_text = glance.document_text;
      data.attestation_data_length = Number(glance.document_length);
    }
    return { id: Number(r.id), type: r.type, compliant: Number(r.compliant) === 1, createdAt: Number(r.created_at), data };
  });
}

export const reads = { attestationOfOrganization, attestationsNamed, attestationGlances };
export const writes = {};
