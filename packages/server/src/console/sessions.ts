/**
 * Console sessions. Signing in checks the token as the API does (the same authenticator), then
 * sets a random session id in an HttpOnly, SameSite=Strict cookie (Secure over HTTPS, which
 * behind a proxy Koa learns from `X-Forwarded-Proto` when the app trusts proxies). The store
 * keeps only the id's SHA-256, the token's id and when the session ends. Every page looks the
 * session up joined to its token as stored now: a revoked or expired token ends its sessions at
 * the next request. The token itself is never sent back to the browser.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { Authenticator, Principal } from '../auth.ts';
import { ApiError } from '../http/errors.ts';
import type { FailedAuthLimit } from '../http/failed-auth-limit.ts';
import type { Store } from '../store/index.ts';

export const sessionCookie = 'trailproof_session';

/** Twelve hours: a working day, after which a person signs in again. */
export const defaultSessionTtlSeconds = 12 * 3600;

/** A signed-in session: the principal its token stands for and its organisation's id. */
export interface Session {
  principal: Principal;
  organizationId: number;
}

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

/** The session of the request's cookie while it and its token are valid; an ended one is removed and its cookie cleared. */
export async function currentSession(ctx: Context, store: Store, cookiePath: string): Promise<Session | null> {
  const id = ctx.cookies.get(sessionCookie);
  if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
  const idSha256 = sha256(id);
  const row = await store.findConsoleSession(idSha256);
  const at = Date.now() / 1000;
  const live = row && row.expiresAt > at && row.tokenRevokedAt === null && (row.tokenExpiresAt === null || row.tokenExpiresAt > at);
  if (!live) {
    if (row) await store.deleteConsoleSession(idSha256, at);
    clearCookie(ctx, cookiePath);
    return null;
  }
  return { principal: { tokenId: row.tokenId, org: row.organization, readOnly: row.readOnly }, organizationId: row.organizationId };
}

export async function closeSession(ctx: Context, store: Store, cookiePath: string): Promise<void> {
  const id = ctx.cookies.get(sessionCookie);
  if (id) await store.deleteConsoleSession(sha256(id), Date.now() / 1000);
  clearCookie(ctx, cookiePath);
}

const clearCookie = (ctx: Context, path: string) => ctx.cookies.set(sessionCookie, '', { ...cookieOptions(ctx, path, 0), expires: new Date(0) });

function cookieOptions(ctx: Context, path: string, maxAge: number) {
  return { httpOnly: true, sameSite: 'strict' as const, secure: ctx.secure, path, maxAge, overwrite: true };
}
