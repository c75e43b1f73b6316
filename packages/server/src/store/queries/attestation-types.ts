/**
 * Custom attestation types (migration 0023): a type per organisation and name, and its versions,
 * each written once. Saving a definition that differs from the latest adds a version; the same
 * definition again adds none, so re-running a pipeline's `kosli create attestation-type` is free.
 */
import type { Generated } from 'kysely';
import { isSqlite, type Db } from '../database.ts';
import { inTransaction } from '../transactions.ts';
import { tokenRef, type TokenRef } from './provenance.ts';

interface CustomAttestationTypesTable {
  id: Generated<number>;
  organization_id: number;
  name: string;
  archived: number;
  created_by_token: string | null;
  created_at: number;
  last_modified_at: number;
}

interface CustomAttestationTypeVersionsTable {
  type_id: number;
  version: number;
  description: string | null;
  type_schema: string | null;
  evaluator: string | null;
  summary: string | null;
  sha256: string;
  created_by_token: string | null;
  created_at: number;
}

const withTypes = (db: Db) =>
  db.withTables<{ custom_attestation_types: CustomAttestationTypesTable; custom_attestation_type_versions: CustomAttestationTypeVersionsTable }>();

/** What a version holds, as stored: the schema as the JSON text uploaded, the evaluator and summary as JSON text. */
export interface AttestationTypeDefinition {
  description: string | null;
  typeSchema: string | null;
  evaluator: string | null;
  summary: string | null;
  /** SHA-256 of what judges (schema, evaluator, summary): what an attestation records of the version. */
  sha256: string;
}

export interface AttestationTypeVersionRow extends AttestationTypeDefinition {
  version: number;
  createdBy: TokenRef | null;
  createdAt: number;
}

export interface AttestationTypeRow {
  id: number;
  name: string;
  archived: boolean;
  createdBy: TokenRef | null;
  createdAt: number;
  lastModifiedAt: number;
}

const typeColumns = [
  't.id',
  't.name',
  't.archived',
  't.created_by_token',
  'tokens.description as token_description',
  't.created_at',
  't.last_modified_at',
] as const;

const typesOf = (db: Db) => withTypes(db).selectFrom('custom_attestation_types as t').leftJoin('tokens', 'tokens.id', 't.created_by_token').select(typeColumns);

type TypeSelect = Awaited<ReturnType<ReturnType<typeof typesOf>['execute']>>[number];
const typeRowOf = (r: TypeSelect): AttestationTypeRow => ({
  id: Number(r.id),
  name: r.name,
  archived: Number(r.archived) === 1,
  createdBy: tokenRef(r.created_by_token, r.token_description),
  createdAt: Number(r.created_at),
  lastModifiedAt: Number(r.last_modified_at),
});

/** The organisation's type of that name, archived or not. */
export async function findAttestationType(db: Db, organizationId: number, name: string): Promise<AttestationTypeRow | undefined> {
  const row = await typesOf(db).where('t.organization_id', '=', organizationId).where('t.name', '=', name).executeTakeFirst();
  return row ? typeRowOf(row) : undefined;
}

/** The organisation's types that are not archived, by name. */
export async function listAttestationTypes(db: Db, organizationId: number): Promise<AttestationTypeRow[]> {
  const rows = await typesOf(db).where('t.organization_id', '=', organizationId).where('t.archived', '=', 0).orderBy('t.name').execute();
  return rows.map(typeRowOf);
}

/** The versions of the types, oldest first, by type id; `version` picks one. */
export async function attestationTypeVersions(
  db: Db,
  typeIds: readonly number[],
  version?: number | 'latest',
): Promise<Map<number, AttestationTypeVersionRow[]>> {
  const out = new Map<number, AttestationTypeVersionRow[]>(typeIds.map((id) => [id, []]));
  if (!typeIds.length) return out;
  const rows = await withTypes(db)
    .selectFrom('custom_attestation_type_versions as v')
    .leftJoin('tokens', 'tokens.id', 'v.created_by_token')
    .selectAll('v')
    .select('tokens.description as token_description')
    .where('v.type_id', 'in', [...typeIds])
    .$if(typeof version === 'number', (q) => q.where('v.version', '=', version as number))
    .orderBy('v.type_id')
    .orderBy('v.version')
    .execute();
  for (const r of rows) {
    out.get(Number(r.type_id))!.push({
      version: Number(r.version),
      description: r.description,
      typeSchema: r.type_schema,
      evaluator: r.evaluator,
      summary: r.summary,
      sha256: r.sha256,
      createdBy: tokenRef(r.created_by_token, r.token_description),
      createdAt: Number(r.created_at),
    });
  }
  if (version === 'latest') for (const [id, list] of out) out.set(id, list.slice(-1));
  return out;
}

/**
 * Saves a definition of the organisation's type `name`: creates the type (and unarchives an
 * archived one), and adds a version unless the latest is the same. The type's row is locked on
 * PostgreSQL, so that two saves at once number their versions one after the other.
 */
export function saveAttestationType(
  db: Db,
  t: { organizationId: number; name: string; definition: AttestationTypeDefinition; createdBy: string | null; at: number },
): Promise<{ created: boolean; version: number; changed: boolean }> {
  return inTransaction(db, async (trx) => {
    const inserted = await withTypes(trx)
      .insertInto('custom_attestation_types')
      .values({ organization_id: t.organizationId, name: t.name, archived: 0, created_by_token: t.createdBy, created_at: t.at, last_modified_at: t.at })
      .onConflict((c) => c.columns(['organization_id', 'name']).doNothing())
      .returning('id')
      .executeTakeFirst();
    const lookup = withTypes(trx)
      .selectFrom('custom_attestation_types')
      .select(['id', 'archived'])
      .where('organization_id', '=', t.organizationId)
      .where('name', '=', t.name);
    const type = await (isSqlite(trx) ? lookup : lookup.forUpdate()).executeTakeFirstOrThrow();
    const typeId = Number(type.id);
    const latest = (await attestationTypeVersions(trx, [typeId], 'latest')).get(typeId)![0];
    const d = t.definition;
    const same = latest && latest.sha256 === d.sha256 && latest.description === d.description;
    if (same && Number(type.archived) === 0) return { created: false, version: latest.version, changed: false };
    const version = same ? latest.version : (latest?.version ?? 0) + 1;
    if (!same) {
      await withTypes(trx)
        .insertInto('custom_attestation_type_versions')
        .values({
          type_id: typeId,
          version,
          description: d.description,
          type_schema: d.typeSchema,
          evaluator: d.evaluator,
          summary: d.summary,
          sha256: d.sha256,
          created_by_token: t.createdBy,
          created_at: t.at,
        })
        .execute();
    }
    await withTypes(trx).updateTable('custom_attestation_types').set({ archived: 0, last_modified_at: t.at }).where('id', '=', typeId).execute();
    return { created: inserted !== undefined, version, changed: !same };
  });
}

/** Archives the organisation's type; false when there is none. */
export async function archiveAttestationType(db: Db, organizationId: number, name: string, at: number): Promise<boolean> {
  const result = await withTypes(db)
    .updateTable('custom_attestation_types')
    .set({ archived: 1, last_modified_at: at })
    .where('organization_id', '=', organizationId)
    .where('name', '=', name)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export const reads = { findAttestationType, listAttestationTypes, attestationTypeVersions };
export const writes = { saveAttestationType, archiveAttestationType };
