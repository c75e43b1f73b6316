/**
 * Console sessions. Signing in checks the token as the API does (the same authenticator), then
 * sets a random session id in an HttpOnly, SameSite=Strict cookie (Secure over HTTPS, which
 * behind a proxy Koa learns from `X-Forwarded-Proto` when the app trusts proxies). The store
 * keeps only the id's SHA-256, the token's id and when the session ends. Every page looks the
 * session up joined to its token as stored now: a revoked or expired token ends its sessions at
 * the next request. The token itself is never sent back to the browser. A person signed in
 * through an OpenID provider (oidc.ts) has a session of the same cookie, its id marked `p.`, kept
 * with the identity the provider vouched for and the role its claims gave.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { Authenticator, Principal } from '../auth.ts';
import { ApiError } from '../http/errors.ts';
import type { FailedAuthLimit } from '../http/failed-auth-limit.ts';
import type { ConsoleIdentity, Store } from '../store/index.ts';
import { isRole, type Role } from './roles.ts';

export const sessionCookie = 'trailproof_session';

/** Twelve hours: a working day, after which a person signs in again. */
export const defaultSessionTtlSeconds = 12 * 3600;

/** Who a session stands for: the token it was opened with, or the person a provider vouched for. */
export type SessionHolder = { kind: 'token'; tokenId: string } | ({ kind: 'person' } & ConsoleIdentity);

/** A signed-in session: its organisation, role and holder. */
export interface Session {
  org: string;
  organizationId: number;
  role: Role;
  holder: SessionHolder;
}

/** How pages name the holder: the person's e-mail (or subject), or the token's id. */
export const holderName = (holder: SessionHolder) => (holder.kind === 'person' ? (holder.email ?? holder.subject) : `token ${holder.tokenId}`);

/** A person's session ids start so, to be looked up among people's sessions. */
const personMark = 'p.';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Forms are small: a token and where to go next. */
const maxFormBytes = 8 * 1024;

/** Reads an `application/x-www-form-urlencoded` body of at most 8 KiB. */
export async function readForm(ctx: Context): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new ApiError(415, 'The form must be sent as application/x-www-form-urlencoded');
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > maxFormBytes) throw new ApiError(413, 'The form is too large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxFormBytes) throw new ApiError(413, 'The form is too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * The two POSTs (sign-in, sign-out) must come from the console's own pages: the browser's
 * `Origin` must be this site's. SameSite=Strict already keeps the cookie off other sites'
 * requests; this also stops another site from signing a person in with its own token.
 */
export function assertSameOrigin(ctx: Context): void {
  // Koa 3's ctx.origin is the Origin header itself: this site's origin is built from the request.
  const own = `${ctx.protocol}://${ctx.host}`;
  if (ctx.get('origin') === own) return;
  // Forwarded headers the server ignores are the likely cause: an HTTPS proxy the server was not told to trust.
  const hint = !ctx.app.proxy && (ctx.get('x-forwarded-proto') || ctx.get('x-forwarded-host')) ? ' (behind a proxy, the server must be told to trust it)' : '';
  throw new ApiError(403, `This form must be sent from the sign-in page of this site${hint}`);
}

export async function openSession(
  ctx: Context,
  o: { store: Store; auth: Authenticator; limit: FailedAuthLimit; token: string; ttlSeconds: number; cookiePath: string },
): Promise<Principal | null> {
  const principal = await o.limit.authenticate(ctx, o.auth, `Bearer ${o.token}`);
  if (!principal) return null;
  const organization = await o.store.findOrganization(principal.org);
  if (!organization) return null;
  const id = randomBytes(32).toString('base64url');
  const at = Date.now() / 1000;
  await o.store.insertConsoleSession({
    idSha256: sha256(id),
    tokenId: principal.tokenId,
    organizationId: Number(organization.id),
    at,
    expiresAt: at + o.ttlSeconds,
  });
  ctx.cookies.set(sessionCookie, id, cookieOptions(ctx, o.cookiePath, o.ttlSeconds * 1000));
  return principal;
}

/** Opens a session for a person the provider vouched for, at the role its claims give in the organisation. */
export async function openPersonSession(
  ctx: Context,
  o: { store: Store; person: ConsoleIdentity; organizationId: number; role: Role; ttlSeconds: number; cookiePath: string },
): Promise<void> {
  const id = `${personMark}${randomBytes(32).toString('base64url')}`;
  const at = Date.now() / 1000;
  await o.store.insertIdentitySession({ ...o.person, idSha256: sha256(id), organizationId: o.organizationId, role: o.role, at, expiresAt: at + o.ttlSeconds });
  ctx.cookies.set(sessionCookie, id, cookieOptions(ctx, o.cookiePath, o.ttlSeconds * 1000));
}

/** The session of the request's cookie while it (and its token) is valid; an ended one is removed and its cookie cleared. */
export async function currentSession(ctx: Context, store: Store, cookiePath: string): Promise<Session | null> {
  const id = ctx.cookies.get(sessionCookie);
  const person = id?.startsWith(personMark) ?? false;
  const secret = person ? id!.slice(personMark.length) : id;
  if (!secret || !/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  const idSha256 = sha256(id!);
  const at = Date.now() / 1000;
  const session = person ? await personSession(store, idSha256, at) : await tokenSession(store, idSha256, at);
  if (session !== null && session !== 'ended') return session;
  // Only a session that exists is removed: a made-up cookie costs the store no write.
  if (session === 'ended') await (person ? store.deleteIdentitySession(idSha256, at) : store.deleteConsoleSession(idSha256, at));
  clearCookie(ctx, cookiePath);
  return null;
}

/** A session as the store holds it: live, ended (to be removed), or none. */
type StoredSession = Session | 'ended' | null;

async function tokenSession(store: Store, idSha256: string, at: number): Promise<StoredSession> {
  const row = await store.findConsoleSession(idSha256);
  if (!row) return null;
  const live = row.expiresAt > at && row.tokenRevokedAt === null && (row.tokenExpiresAt === null || row.tokenExpiresAt > at);
  if (!live) return 'ended';
  // A token's session is a member's when the token may write, a reader's when it is read-only.
  const role = row.readOnly ? 'reader' : 'member';
  return { org: row.organization, organizationId: row.organizationId, role, holder: { kind: 'token', tokenId: row.tokenId } };
}

async function personSession(store: Store, idSha256: string, at: number): Promise<StoredSession> {
  const row = await store.findIdentitySession(idSha256);
  if (!row) return null;
  if (row.expiresAt <= at || !isRole(row.role)) return 'ended';
  const holder = { kind: 'person' as const, issuer: row.issuer, subject: row.subject, email: row.email };
  return { org: row.organization, organizationId: row.organizationId, role: row.role, holder };
}

export async function closeSession(ctx: Context, store: Store, cookiePath: string): Promise<void> {
  const id = ctx.cookies.get(sessionCookie);
  const at = Date.now() / 1000;
  if (id) await (id.startsWith(personMark) ? store.deleteIdentitySession(sha256(id), at) : store.deleteConsoleSession(sha256(id), at));
  clearCookie(ctx, cookiePath);
}

const clearCookie = (ctx: Context, path: string) => ctx.cookies.set(sessionCookie, '', { ...cookieOptions(ctx, path, 0), expires: new Date(0) });

export function cookieOptions(ctx: Context, path: string, maxAge: number) {
  return { httpOnly: true, sameSite: 'strict' as const, secure: ctx.secure, path, maxAge, overwrite: true };
}
