/**
 * What a policy is judged on, read in batches (domain/policy-facts.ts): every report of a set of
 * fingerprints in an organisation (optionally one flow) with its flow's tags and templates, and
 * the control each `decision` attestation of some trails decides. Bound lists are chunked below
 * SQLite's variable limit; both databases.
 */
import { PostgresAdapter, sql } from 'kysely';
import { inListChunks, type Db } from '../database.ts';
import { fromJson } from '../json.ts';
import { readRowOf, readRowsQuery, type ReadArtifactRow } from './artifact-reads.ts';

/** A report of a fingerprint, with the tags of its flow. */
export type PolicyArtifactRow = ReadArtifactRow & { flowTags: Record<string, string> };

/** Every report of `fingerprints` in the organisation (in the flow named `flow` if given), newest first. */
export async function policyArtifactRows(db: Db, organizationId: number, fingerprints: readonly string[], flow?: string): Promise<PolicyArtifactRow[]> {
  const out: PolicyArtifactRow[] = [];
  for (const chunk of inListChunks([...new Set(fingerprints)])) {
    const rows = await readRowsQuery(db)
      .select('f.tags as flow_tags')
      .where('r.organization_id', '=', organizationId)
      .where('r.fingerprint', 'in', chunk)
      .$if(flow !== undefined, (q) => q.where('f.name', '=', flow!))
      .execute();
    for (const r of rows) out.push({ ...readRowOf(r), flowTags: stringTags(fromJson(r.flow_tags, {})) });
  }
  return out.sort((x, y) => y.id - x.id);
}

/** A tags object with its string values (tags are strings; anything else is left out). */
const stringTags = (tags: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(tags && typeof tags === 'object' ? tags : {}).filter((e): e is [string, string] => typeof e[1] === 'string'));

/** Per `decision` attestation of these trails, the control it decides (its data's `control`, as `kosli attest decision` sends it). */
export async function decisionControlsOf(db: Db, trailIds: readonly number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const control =
    db.getExecutor().adapter instanceof PostgresAdapter ? sql<string | null>`(data::json ->> 'control')` : sql<string | null>`data ->> '$.control'`;
  for (const chunk of inListChunks([...new Set(trailIds)])) {
    const rows = await db
      .selectFrom('attestations')
      .select('id')
      .select(control.as('control'))
      .where('trail_id', 'in', chunk)
      .where('type', '=', 'decision')
      .execute();
    for (const r of rows) if (typeof r.control === 'string') out.set(Number(r.id), r.control);
  }
  return out;
}

export const reads = { policyArtifactRows, decisionControlsOf };
export const writes = {};
