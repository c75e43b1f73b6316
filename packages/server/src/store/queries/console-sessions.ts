/** Console sessions (migration 0016): opened at sign-in, read on every page, ended at sign-out or when their token stops working. */
import { compiledOnce } from '../compiled-once.ts';
import type { Db } from '../database.ts';

/** A session with what its token allows now. */
export interface ConsoleSessionRow {
  tokenId: string;
  organizationId: number;
  organization: string;
  readOnly: boolean;
  expiresAt: number;
  tokenRevokedAt: number | null;
  tokenExpiresAt: number | null;
}

export async function insertConsoleSession(
  db: Db,
  s: { idSha256: string; tokenId: string; organizationId: number; at: number; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('console_sessions')
    .values({
      id_sha256: s.idSha256,
      token_id: s.tokenId,
      organization_id: s.organizationId,
      created_at: s.at,
      expires_at: s.expiresAt,
    })
    .execute();
}

// Read on every page: compiled once.
const sessionById = compiledOnce((db, v: { idSha256: string }) =>
  db
    .selectFrom('console_sessions as s')
    .innerJoin('tokens as t', 't.id', 's.token_id')
    .innerJoin('organizations as o', 'o.id', 's.organization_id')
    .select(['s.token_id', 's.organization_id', 'o.name', 't.read_only', 's.expires_at', 't.revoked_at', 't.expires_at as token_expires_at'])
    .where('s.id_sha256', '=', v.idSha256),
);

/** The session whose id hashes to `idSha256`, joined to its token as it is now (not as remembered), so that a revocation ends it at once. */
export async function findConsoleSession(db: Db, idSha256: string): Promise<ConsoleSessionRow | undefined> {
  const [r] = await sessionById(db, { idSha256 });
  if (!r) return undefined;
  return {
    tokenId: r.token_id,
    organizationId: Number(r.organization_id),
    organization: r.name,
    readOnly: Number(r.read_only) === 1,
    expiresAt: Number(r.expires_at),
    tokenRevokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    tokenExpiresAt: r.token_expires_at === null ? null : Number(r.token_expires_at),
  };
}

/** Ends a session (sign-out, or found ended); also removes sessions that ended before `at`, so the table holds live ones only. */
export async function deleteConsoleSession(db: Db, idSha256: string, at: number): Promise<void> {
  await db
    .deleteFrom('console_sessions')
    .where((eb) => eb.or([eb('id_sha256', '=', idSha256), eb('expires_at', '<=', at)]))
    .execute();
}

export const reads = { findConsoleSession };
export const writes = { insertConsoleSession, deleteConsoleSession };
