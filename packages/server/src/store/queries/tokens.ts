import type { Db } from '../database.ts';
import { compiledOnce } from '../compiled-once.ts';

export interface TokenRow {
  id: string;
  organization: string;
  secretSha256: string;
  readOnly: boolean;
  description: string | null;
  createdAt: number;
  revokedAt: number | null;
  /** When it stops working (Unix seconds); null: never. */
  expiresAt: number | null;
}

export async function insertToken(
  db: Db,
  token: { id: string; organizationId: number; secretSha256: string; readOnly: boolean; description: string | null; at: number; expiresAt?: number | null },
): Promise<void> {
  await db
    .insertInto('tokens')
    .values({
      id: token.id,
      organization_id: token.organizationId,
      secret_sha256: token.secretSha256,
      read_only: token.readOnly ? 1 : 0,
      description: token.description,
      created_at: token.at,
      revoked_at: null,
      expires_at: token.expiresAt ?? null,
    })
    .execute();
}

const tokenColumns = (db: Db) =>
  db
    .selectFrom('tokens')
    .innerJoin('organizations', 'organizations.id', 'tokens.organization_id')
    .select([
      'tokens.id',
      'organizations.name as organization',
      'tokens.secret_sha256',
      'tokens.read_only',
      'tokens.description',
      'tokens.created_at',
      'tokens.revoked_at',
      'tokens.expires_at',
    ]);

type TokenSelect = {
  id: string;
  organization: string;
  secret_sha256: string;
  read_only: number;
  description: string | null;
  created_at: number;
  revoked_at: number | null;
  expires_at: number | null;
};
const toTokenRow = (r: TokenSelect): TokenRow => ({
  id: r.id,
  organization: r.organization,
  secretSha256: r.secret_sha256,
  readOnly: Number(r.read_only) === 1,
  description: r.description,
  createdAt: Number(r.created_at),
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  expiresAt: r.expires_at === null ? null : Number(r.expires_at),
});

/** Every request looks its token up: compiled once. */
const tokenById = compiledOnce((db, v: { id: string }) => tokenColumns(db).where('tokens.id', '=', v.id));

export async function findToken(db: Db, id: string): Promise<TokenRow | undefined> {
  const [row] = await tokenById(db, { id });
  return row ? toTokenRow(row) : undefined;
}

export async function listTokens(db: Db, organization?: string): Promise<TokenRow[]> {
  let query = tokenColumns(db).orderBy('tokens.created_at');
  if (organization !== undefined) query = query.where('organizations.name', '=', organization);
  return (await query.execute()).map(toTokenRow);
}

/** Marks a token revoked; returns false when there is no such (unrevoked) token. */
export async function revokeToken(db: Db, id: string, at: number): Promise<boolean> {
  const result = await db.updateTable('tokens').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export const reads = { findToken, listTokens };
export const writes = { insertToken, revokeToken };
