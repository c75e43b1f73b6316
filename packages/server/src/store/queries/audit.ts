/**
 * What an audit package reads besides the log: the rows its leaves vouch for, with
 * their digest columns exactly as the chain digested them, and the few joins the API's views
 * need. Each reads a page of ids at a time (one query per table and page), so an export of any
 * size holds one page in memory.
 */
import { sql } from 'kysely';
import { parseSignerKey } from '../../transparency/index.ts';
import { digestColumns, digestedRow, type DigestTable } from './chain.ts';
import { inListChunks, type Db } from '../database.ts';
import { type AttestationRow, attestationRowOf, attestationRowsQuery } from './attestations.ts';

/** The rows of `table` with these ids, as their digests cover them (by id; missing rows left out). */
export async function auditRows(db: Db, table: DigestTable, ids: readonly number[]): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>();
  for (const chunk of inListChunks(ids)) {
    const rows = (await (db as any)
      .selectFrom(table)
      .select(digestColumns[table] as unknown as string[])
      .where('id', 'in', chunk)
      .execute()) as Array<Record<string, unknown>>;
    for (const row of rows) out.set(Number(row.id), digestedRow(row));
  }
  return out;
}

/** An attestation as the API shows it needs, with whether a later one of its name on its trail supersedes it. */
export interface AuditAttestation extends AttestationRow {
  isLatest: boolean;
}

/** These attestations (by id), as `listAttestations` reads them, and whether each is the latest of its name. */
export async function auditAttestations(db: Db, ids: readonly number[]): Promise<Map<number, AuditAttestation>> {
  const out = new Map<number, AuditAttestation>();
  for (const chunk of inListChunks(ids)) {
    const rows = await attestationRowsQuery(db)
      .select(
        sql<number>`(select count(*) from attestations later where later.trail_id = attestations.trail_id and later.name = attestations.name and later.id > attestations.id)`.as(
          'later',
        ),
      )
      .where('attestations.id', 'in', chunk)
      .execute();
    for (const r of rows) out.set(Number(r.id), { ...attestationRowOf(r), isLatest: Number(r.later) === 0 });
  }
  return out;
}

/** Where each snapshot sits: its environment's id, name and type, and its index. */
export async function auditSnapshotPlaces(
  db: Db,
  ids: readonly number[],
): Promise<Map<number, { environmentId: number; envName: string; envType: string; index: number }>> {
  const out = new Map<number, { environmentId: number; envName: string; envType: string; index: number }>();
  for (const chunk of inListChunks(ids)) {
    const rows = await db
      .selectFrom('snapshots')
      .innerJoin('environments', 'environments.id', 'snapshots.environment_id')
      .select(['snapshots.id', 'snapshots.snapshot_index', 'environments.id as environment_id', 'environments.name', 'environments.type'])
      .where('snapshots.id', 'in', chunk)
      .execute();
    for (const r of rows) out.set(Number(r.id), { environmentId: Number(r.environment_id), envName: r.name, envType: r.type, index: Number(r.snapshot_index) });
  }
  return out;
}

/** Where each approval sits: its flow's id and name, and its number. */
export async function auditApprovalPlaces(db: Db, ids: readonly number[]): Promise<Map<number, { flowId: number; flowName: string; number: number }>> {
  const out = new Map<number, { flowId: number; flowName: string; number: number }>();
  for (const chunk of inListChunks(ids)) {
    const rows = await db
      .selectFrom('approvals')
      .innerJoin('flows', 'flows.id', 'approvals.flow_id')
      .select(['approvals.id', 'approvals.release_number', 'flows.id as flow_id', 'flows.name'])
      .where('approvals.id', 'in', chunk)
      .execute();
    for (const r of rows) out.set(Number(r.id), { flowId: Number(r.flow_id), flowName: r.name, number: Number(r.release_number) });
  }
  return out;
}

/** The description of each token id (tokens named as `created_by_token` of reviews). */
export async function auditTokenDescriptions(db: Db, ids: readonly string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const chunk of inListChunks(ids)) {
    for (const r of await db.selectFrom('tokens').select(['id', 'description']).where('id', 'in', chunk).execute()) out.set(r.id, r.description);
  }
  return out;
}

/** The verifier key of the signing key the database keeps (none when the server is given its key). */
export async function logVerifierKey(db: Db): Promise<string | undefined> {
  const row = await db.selectFrom('log_signing').select('signer_key').where('id', '=', 1).executeTakeFirst();
  return row?.signer_key ? parseSignerKey(row.signer_key).verifierKey : undefined;
}

export const reads = { auditRows, auditAttestations, auditSnapshotPlaces, auditApprovalPlaces, auditTokenDescriptions, logVerifierKey };
export const writes = {};
