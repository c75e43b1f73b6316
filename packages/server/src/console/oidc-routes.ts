/**
 * The two addresses of a sign-in through the OpenID provider: `/sign-in/oidc` sends the browser to
 * the provider with a fresh state, nonce and PKCE challenge kept in a cookie of its own, and
 * `/sign-in/oidc/callback` (the redirect URI registered at the provider) takes the code back, once.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { VNode } from 'preact';
import { ApiError } from '../http/errors.ts';
import type { Store } from '../store/index.ts';
import { callbackPath, grantsOf, type OidcSignIn, type OidcTransaction } from './oidc.ts';
import { SignInPage, type SignInMethods } from './pages/sign-in.tsx';
import type { Role } from './roles.ts';
import { cookieOptions, openPersonSession } from './sessions.ts';

const transactionCookie = 'trailproof_oidc';
/** Ten minutes to sign in at the provider and come back. */
const transactionSeconds = 600;

export interface OidcRoutes {
  store: Store;
  oidc: OidcSignIn;
  methods: SignInMethods;
  ttlSeconds: number;
  baseOf(ctx: Context): string;
  safeNext(base: string, next: unknown): string | undefined;
  html(ctx: Context, status: number, page: VNode): void;
}

export function mountOidcSignIn(router: Router, r: OidcRoutes): void {
  router.get('/sign-in/oidc', async (ctx) => {
    const base = r.baseOf(ctx);
    const { url, transaction } = await r.oidc.start({ origin: `${ctx.protocol}://${ctx.host}`, base }, r.safeNext(base, ctx.query.next));
    // Lax, not Strict: the provider's redirect back is another site's navigation, which must bring it.
    const options = { ...cookieOptions(ctx, `${base}/sign-in/oidc`, transactionSeconds * 1000), sameSite: 'lax' as const };
    ctx.cookies.set(transactionCookie, Buffer.from(JSON.stringify(transaction)).toString('base64url'), options);
    ctx.status = 303;
    ctx.redirect(url);
  });

  router.get(callbackPath, async (ctx) => {
    const base = r.baseOf(ctx);
    const transaction = readTransaction(ctx.cookies.get(transactionCookie));
    // Used once: a replayed callback finds no transaction, and the provider refuses a code twice anyway.
    ctx.cookies.set(transactionCookie, '', { ...cookieOptions(ctx, `${base}/sign-in/oidc`, 0), expires: new Date(0) });
    const refuse = (status: number, problem: string) => r.html(ctx, status, SignInPage({ base, methods: r.methods, problem }));
    if (!transaction) return refuse(400, 'This sign-in was already used or has expired: sign in again.');
    try {
      const org = await signInPerson(ctx, r, base, transaction);
      ctx.status = 303;
      ctx.redirect(transaction.next?.startsWith(`${base}/${encodeURIComponent(org)}/`) ? transaction.next : `${base}/${encodeURIComponent(org)}`);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return refuse(error.status, error.message);
    }
  });
}

/** Trades the code, ends the person's sessions their claims no longer give, and opens one in the organisation to go to. */
async function signInPerson(ctx: Context, r: OidcRoutes, base: string, transaction: OidcTransaction): Promise<string> {
  const { person, claims } = await r.oidc.finish({ origin: `${ctx.protocol}://${ctx.host}`, base }, ctx.search, transaction);
  const keep: Array<{ organizationId: number; role: Role; org: string }> = [];
  for (const [org, role] of grantsOf(r.oidc.mapping, claims)) {
    const organization = await r.store.findOrganization(org);
    if (organization) keep.push({ organizationId: Number(organization.id), role, org });
  }
  await r.store.endIdentitySessions({ issuer: person.issuer, subject: person.subject, keep });
  if (keep.length === 0)
    throw new ApiError(403, `The identity provider vouched for ${person.email ?? person.subject}, but gives no organisation of this server.`);
  keep.sort((a, b) => a.org.localeCompare(b.org));
  // The organisation the person was on the way to, when it is one of theirs; else the first by name.
  const chosen = keep.find((k) => transaction.next?.startsWith(`${base}/${encodeURIComponent(k.org)}/`)) ?? keep[0]!;
  await openPersonSession(ctx, {
    store: r.store,
    person,
    organizationId: chosen.organizationId,
    role: chosen.role,
    ttlSeconds: r.ttlSeconds,
    cookiePath: base,
  });
  return chosen.org;
}

function readTransaction(raw: string | undefined): OidcTransaction | null {
  if (!raw || raw.length > 2000) return null;
  try {
    const t = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<OidcTransaction>;
    const text = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200;
    return text(t.state) && text(t.nonce) && text(t.verifier)
      ? { state: t.state, nonce: t.nonce, verifier: t.verifier, next: typeof t.next === 'string' ? t.next : undefined }
      : null;
  } catch {
    return null;
  }
}
