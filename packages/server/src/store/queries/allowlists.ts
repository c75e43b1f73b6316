/**
 * Environment allow-lists (`kosli allow artifact`): each allowance stored once, never changed or
 * removed (migration 0027's triggers), and read back as the set of fingerprints an environment
 * allows.
 */
import type { Db } from '../database.ts';
import { inListChunks } from '../database.ts';
import { tokenRef, type TokenRef } from './provenance.ts';

export interface AllowlistEntryInput {
  organizationId: number;
  environmentId: number;
  fingerprint: string;
  artifactName: string;
  description: string;
  createdBy: string | null;
  at: number;
}

export interface AllowlistEntry {
  environment_name: string;
  fingerprint: string;
  artifact_name: string;
  description: string;
  timestamp: number;
  createdBy: TokenRef | null;
}

/** Stores one allowance (each `allow artifact` is one, a repeated one too: who allowed what, when and why). */
export async function insertAllowlistEntry(db: Db, e: AllowlistEntryInput): Promise<void> {
  await db
    .insertInto('allowlist_entries')
    .values({
      organization_id: e.organizationId,
      environment_id: e.environmentId,
      fingerprint: e.fingerprint,
      artifact_name: e.artifactName,
      description: e.description,
      created_by_token: e.createdBy,
      created_at: e.at,
    })
    .execute();
}

/** Which of `fingerprints` the environment allows (one statement per chunk of the list). */
export async function allowlistedFingerprints(db: Db, environmentId: number, fingerprints: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const chunk of inListChunks([...new Set(fingerprints)])) {
    const rows = await db
      .selectFrom('allowlist_entries')
      .select('fingerprint')
      .distinct()
      .where('environment_id', '=', environmentId)
      .where('fingerprint', 'in', chunk)
      .execute();
    for (const r of rows) out.add(r.fingerprint);
  }
  return out;
}

/** The organisation's allowances, oldest first, with their environments' names (GET /allowlists/{org}). */
export async function listAllowlistEntries(db: Db, organizationId: number): Promise<AllowlistEntry[]> {
  const rows = await db
    .selectFrom('allowlist_entries as a')
    .innerJoin('environments as e', 'e.id', 'a.environment_id')
    .leftJoin('tokens as t', 't.id', 'a.created_by_token')
    .select(['e.name', 'a.fingerprint', 'a.artifact_name', 'a.description', 'a.created_at', 'a.created_by_token', 't.description as token_description'])
    .where('a.organization_id', '=', organizationId)
    .orderBy('a.id')
    .execute();
  return rows.map((r) => ({
    environment_name: r.name,
    fingerprint: r.fingerprint,
    artifact_name: r.artifact_name,
    description: r.description,
    timestamp: Number(r.created_at),
    createdBy: tokenRef(r.created_by_token, r.token_description),
  }));
}

export const reads = { allowlistedFingerprints, listAllowlistEntries };
export const writes = { insertAllowlistEntry };
