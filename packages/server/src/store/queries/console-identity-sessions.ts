/**
 * Console sessions of people an OpenID provider vouched for (migration 0028): opened at sign-in,
 * read on every page, ended at sign-out, by an admin, or by a later sign-in of the same person
 * whose claims no longer give that organisation or that role.
 */
import { compiledOnce } from '../compiled-once.ts';
import type { Db } from '../database.ts';

/** The person a session stands for, as the provider vouched at sign-in. */
export interface ConsoleIdentity {
  issuer: string;
  subject: string;
  email: string | null;
}

/** A person's session with its organisation's name. */
export interface ConsoleIdentitySessionRow extends ConsoleIdentity {
  organizationId: number;
  organization: string;
  role: string;
  createdAt: number;
  expiresAt: number;
}

export async function insertIdentitySession(
  db: Db,
  s: ConsoleIdentity & { idSha256: string; organizationId: number; role: string; at: number; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('console_identity_sessions')
    .values({
      id_sha256: s.idSha256,
      organization_id: s.organizationId,
      issuer: s.issuer,
      subject: s.subject,
      email: s.email,
      role: s.role,
      created_at: s.at,
      expires_at: s.expiresAt,
    })
    .execute();
}

// Read on every page: compiled once.
const sessionById = compiledOnce((db, v: { idSha256: string }) =>
  db
    .selectFrom('console_identity_sessions as s')
    .innerJoin('organizations as o', 'o.id', 's.organization_id')
    .select(['s.organization_id', 'o.name', 's.issuer', 's.subject', 's.email', 's.role', 's.created_at', 's.expires_at'])
    .where('s.id_sha256', '=', v.idSha256),
);

/** The session whose id hashes to `idSha256`, as stored now. */
export async function findIdentitySession(db: Db, idSha256: string): Promise<ConsoleIdentitySessionRow | undefined> {
  const [r] = await sessionById(db, { idSha256 });
  if (!r) return undefined;
  return {
    organizationId: Number(r.organization_id),
    organization: r.name,
    issuer: r.issuer,
    subject: r.subject,
    email: r.email,
    role: r.role,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
  };
}

/** The people signed in to an organisation now, newest session first (at most 500: the admin's list). */
export async function listIdentitySessions(db: Db, organizationId: number, at: number): Promise<ConsoleIdentitySessionRow[]> {
  const rows = await db
    .selectFrom('console_identity_sessions as s')
    .innerJoin('organizations as o', 'o.id', 's.organization_id')
    .select(['s.organization_id', 'o.name', 's.issuer', 's.subject', 's.email', 's.role', 's.created_at', 's.expires_at'])
    .where('s.organization_id', '=', organizationId)
    .where('s.expires_at', '>', at)
    .orderBy('s.created_at', 'desc')
    .limit(500)
    .execute();
  return rows.map((r) => ({
    organizationId: Number(r.organization_id),
    organization: r.name,
    issuer: r.issuer,
    subject: r.subject,
    email: r.email,
    role: r.role,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
  }));
}

/** Ends a session (sign-out, or found ended); also removes sessions that ended before `at`. */
export async function deleteIdentitySession(db: Db, idSha256: string, at: number): Promise<void> {
  await db
    .deleteFrom('console_identity_sessions')
    .where((eb) => eb.or([eb('id_sha256', '=', idSha256), eb('expires_at', '<=', at)]))
    .execute();
}

/**
 * Ends a person's sessions except those in an organisation at the role `keep` gives it: what a
 * sign-in does with the claims the provider vouches for now (a group removed, a role changed).
 * With `keep` empty every session of the person ends; `onlyIn` limits it to one organisation.
 */
export async function endIdentitySessions(
  db: Db,
  who: { issuer: string; subject: string; keep: ReadonlyArray<{ organizationId: number; role: string }>; onlyIn?: number },
): Promise<number> {
  const result = await db
    .deleteFrom('console_identity_sessions')
    .where('issuer', '=', who.issuer)
    .where('subject', '=', who.subject)
    .$if(who.onlyIn !== undefined, (q) => q.where('organization_id', '=', who.onlyIn!))
    .$if(who.keep.length > 0, (q) =>
      q.where((eb) => eb.not(eb.or(who.keep.map((k) => eb.and([eb('organization_id', '=', k.organizationId), eb('role', '=', k.role)]))))),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export const reads = { findIdentitySession, listIdentitySessions };
export const writes = { insertIdentitySession, deleteIdentitySession, endIdentitySessions };
