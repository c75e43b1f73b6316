/**
 * The console: pages for people, served by the same server as the API.
 *
 * People sign in with an API token, through an OpenID provider (`oidc`), or either; the role of
 * the session (roles.ts) decides which pages and actions (action.ts, the forms that write) it may use.
 *
 * `createConsole({ store })` returns a @koa/router: `createApp` mounts it at `/ui` by default
 * (`console: false` leaves it out), and an embedding Koa app mounts it like the API's router,
 * `app.use(console.routes())`, under any `prefix`. Pages are plain values (page.ts) listed in
 * routes.ts; every one answers under `/{org}/...` for the signed-in organisation only.
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { VNode } from 'preact';
import { storeTokens, type Authenticator } from '../auth.ts';
import { ApiError } from '../http/errors.ts';
import { FailedAuthLimit } from '../http/failed-auth-limit.ts';
import { contentDisposition } from '../operations/download-attachment.ts';
import { silentLogger, type Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import { renderDocument, renderPage } from './layout.tsx';
import type { Page, PageInput, PageResult } from './page.ts';
import { createPageCache, type Lasting } from './page-cache.ts';
import { consolePages } from './routes.ts';
import type { Action } from './action.ts';
import { consoleActions } from './actions/index.ts';
import { createOidcSignIn, type OidcSignInOptions } from './oidc.ts';
import { mountOidcSignIn } from './oidc-routes.ts';
import { ProblemPage, SignInPage, type SignInMethods } from './pages/sign-in.tsx';
import { roleAllows } from './roles.ts';
import { assertSameOrigin, closeSession, currentSession, defaultSessionTtlSeconds, holderName, openSession, readForm, type Session } from './sessions.ts';
import { consoleCss, consoleJs } from './static.ts';
import { notingTimes } from './components/time.tsx';

export interface ConsoleOptions {
  store: Store;
  /** How sign-in checks a token; tokens in the store by default (sessions are bound to stored tokens). */
  auth?: Authenticator;
  /** Path of every page; `/ui` by default. */
  prefix?: string;
  /** How long a session lasts (seconds); 12 hours by default. */
  sessionTtlSeconds?: number;
  /** The pages served; `consolePages` (routes.ts) by default. */
  pages?: readonly Page[];
  /** The API's prefix, for the curl hints on empty pages; `/api/v2` by default. */
  apiPrefix?: string;
  /** Where 5xx causes are logged. */
  logger?: Logger;
  /** Failed sign-ins one client address may make a minute (30 by default); beyond them the form answers 429. */
  failedTokenChecksPerMinute?: number;
  /** The table of failed token checks, shared with the API by `createApp`; one of the console's own by default. */
  failedAuthLimit?: FailedAuthLimit;
  /** Sign-in through an OpenID provider; none by default. */
  oidc?: OidcSignInOptions;
  /** Whether an API token signs in too (true by default; with `oidc`, false leaves the provider only). */
  tokenSignIn?: boolean;
  /** The forms that write; `consoleActions` (actions/index.ts) by default. */
  actions?: readonly Action[];
}

/**
 * Sent with every answer of the console: no script or style but the console's own files, no
 * framing, forms only to itself, and no address of a page given to other sites (`same-origin`:
 * with `no-referrer` Chromium sends `Origin: null` on the sign-in form's own POST).
 */
export const consoleSecurityHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

export function createConsole(options: ConsoleOptions): Router {
  const { store, prefix = '/ui', logger = silentLogger, apiPrefix = '/api/v2' } = options;
  const auth = options.auth ?? storeTokens(store);
  const ttlSeconds = options.sessionTtlSeconds ?? defaultSessionTtlSeconds;
  if (!(Number.isFinite(ttlSeconds) && ttlSeconds > 0)) throw new RangeError(`sessionTtlSeconds must be a positive number, not ${ttlSeconds}`);
  const limit = options.failedAuthLimit ?? new FailedAuthLimit({ perMinute: options.failedTokenChecksPerMinute });
  const pages = options.pages ?? consolePages;
  const cache = createPageCache(store.committedVersion?.bind(store));
  const actions = options.actions ?? consoleActions;
  for (const page of [...pages, ...actions]) if (!page.path.startsWith('/:org')) throw new Error(`A console page's path starts with /:org: '${page.path}'`);
  const oidc = options.oidc ? createOidcSignIn(options.oidc) : undefined;
  const methods: SignInMethods = { token: options.tokenSignIn !== false || !oidc, ...(oidc ? { oidcLabel: oidc.label } : {}) };

  const router = new Router({ prefix });
  /** The console's path as the browser sees it: an embedding app's mount included. */
  const baseOf = (ctx: Context) => {
    const original = ctx.originalUrl.split('?')[0] ?? '';
    const mount = original.endsWith(ctx.path) ? original.slice(0, original.length - ctx.path.length) : '';
    return mount + prefix;
  };
  /** A page as HTML: a document already rendered, or one to render. */
  const html = (ctx: Context, status: number, page: VNode | string | Buffer) => {
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-store');
    // As bytes: Node writes a string answer by joining it to the headers first (a copy of the whole page).
    ctx.body = Buffer.isBuffer(page) ? page : Buffer.from(typeof page === 'string' ? page : renderDocument(page));
  };

  router.use(async (ctx, next) => {
    ctx.set(consoleSecurityHeaders);
    try {
      await next();
    } catch (error) {
      const status = error instanceof ApiError ? error.status : 500;
      if (status >= 500)
        logger.error({ msg: 'console page failed', path: ctx.path, error: String((error as Error)?.stack ?? error), request_id: ctx.state.requestId });
      const message = status >= 500 ? `The page could not be shown. Request id: ${String(ctx.state.requestId ?? 'none')}` : (error as Error).message;
      html(ctx, status, ProblemPage({ base: baseOf(ctx), org: (ctx.state.session as Session | undefined)?.org, status, message }));
    }
  });

  router.get('/static/console.css', (ctx) => {
    ctx.type = 'text/css; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.body = consoleCss;
  });

  router.get('/static/console.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.body = consoleJs;
  });

  router.get('/', async (ctx) => {
    const session = await currentSession(ctx, store, baseOf(ctx));
    ctx.redirect(session ? `${baseOf(ctx)}/${encodeURIComponent(session.org)}` : `${baseOf(ctx)}/sign-in`);
  });

  router.get('/sign-in', (ctx) => {
    html(ctx, 200, SignInPage({ base: baseOf(ctx), next: safeNext(baseOf(ctx), ctx.query.next), methods }));
  });

  if (oidc) mountOidcSignIn(router, { store, oidc, methods, ttlSeconds, baseOf, safeNext, html });

  router.post('/sign-in', async (ctx) => {
    assertSameOrigin(ctx);
    if (!methods.token) throw new ApiError(404, 'This server signs people in through its identity provider only.');
    const base = baseOf(ctx);
    const form = await readForm(ctx);
    const next = safeNext(base, form.get('next') ?? undefined);
    let problem = 'That token is not valid: it is unknown, revoked or mistyped.';
    let status = 401;
    const token = (form.get('token') ?? '').trim();
    const principal = token
      ? await openSession(ctx, { store, auth, limit, token, ttlSeconds, cookiePath: base }).catch((error: unknown) => {
          // An expired token (the authenticator says when) or too many failures: the form says so.
          if (error instanceof ApiError && (error.status === 401 || error.status === 429)) {
            problem = error.message;
            status = error.status;
            if (error.headers) ctx.set(error.headers);
            return null;
          }
          throw error;
        })
      : null;
    if (!principal) return html(ctx, status, SignInPage({ base, next, problem, methods }));
    ctx.status = 303;
    ctx.redirect(next ?? `${base}/${encodeURIComponent(principal.org)}`);
  });

  router.post('/sign-out', async (ctx) => {
    assertSameOrigin(ctx);
    await closeSession(ctx, store, baseOf(ctx));
    ctx.status = 303;
    ctx.redirect(`${baseOf(ctx)}/sign-in`);
  });

  const signedIn: Middleware = async (ctx, next) => {
    const base = baseOf(ctx);
    const session = await currentSession(ctx, store, base);
    if (!session) {
      ctx.status = 303;
      return ctx.redirect(`${base}/sign-in?next=${encodeURIComponent(ctx.originalUrl)}`);
    }
    ctx.state.session = session;
    // Another organisation's pages look exactly like pages that do not exist.
    if (ctx.params.org !== session.org) throw new ApiError(404, 'There is no such page.');
    return next();
  };
  /** Only a session whose role allows `needed`: a reader's write, or a member at an admin's page, is refused before anything runs. */
  const allowed =
    (needed: Page['role']): Middleware =>
    (ctx, next) => {
      const { role } = ctx.state.session as Session;
      if (needed && !roleAllows(role, needed)) throw new ApiError(403, `Your role, ${role}, does not allow this: it needs ${needed}.`);
      return next();
    };
  const inputOf = (ctx: Context): PageInput => {
    const session = ctx.state.session as Session;
    const base = baseOf(ctx);
    return {
      store,
      role: session.role,
      org: { id: session.organizationId, name: session.org },
      params: ctx.params as Record<string, string>,
      cache,
      query: new URLSearchParams(ctx.querystring),
      now: Date.now() / 1000,
      base,
      url: ctx.originalUrl,
      apiBase: `${ctx.protocol}://${ctx.host}${base.slice(0, base.length - prefix.length)}${apiPrefix}`,
    };
  };

  for (const action of actions) {
    router.post(
      action.path,
      (ctx, next) => (assertSameOrigin(ctx), next()),
      signedIn,
      allowed(action.role),
      async (ctx) => {
        const session = ctx.state.session as Session;
        const form = await readForm(ctx);
        const { redirect } = await action.run({ ...inputOf(ctx), form, holder: session.holder });
        if (!redirect.startsWith(`${baseOf(ctx)}/`)) throw new Error(`A console action redirects under the console only: '${redirect}'`);
        ctx.status = 303;
        ctx.redirect(redirect);
      },
    );
  }

  /**
   * What a page answers, its content as the whole document's bytes; a `remembered` page's from the
   * cache while it holds (page-cache.ts `remember`), under everything its HTML is a function of
   * besides what is stored and the time: the page, the address, the organisation, the viewer and
   * the role (one organisation's or role's page is never another's).
   */
  const answerOf = async (page: Page, session: Session, input: PageInput): Promise<Answer> => {
    const viewer = { name: holderName(session.holder), role: session.role };
    /** The page's answer, its content written out, and until when it holds (never kept without a page's `until`, nor but at 200). */
    const written = async (): Promise<Lasting<Answer>> => {
      const result = await page.render(input);
      if (!('title' in result)) return { value: result, until: Number.NEGATIVE_INFINITY };
      const document = Buffer.from(renderPage({ title: result.title, base: input.base, org: session.org, viewer }, result.content));
      const status = result.status ?? 200;
      return { value: { document, status }, until: status === 200 && result.until !== undefined ? result.until : Number.NEGATIVE_INFINITY };
    };
    if (!page.remembered) return (await written()).value;
    const { base, url, apiBase } = input;
    const fields = { page: page.path, org: session.organizationId, orgName: session.org, viewer: viewer.name, role: viewer.role, base, url, apiBase };
    return cache.remember('page', fields, input.now, async () => {
      // Kept while the page's own `until` and every "how long ago" it writes hold.
      const { value, until } = await notingTimes(written);
      return { value: value.value, until: Math.min(value.until, until) };
    });
  };

  for (const page of pages) {
    router.get(page.path, signedIn, allowed(page.role), async (ctx) => {
      const session = ctx.state.session as Session;
      const input = inputOf(ctx);
      const base = input.base;
      const result = await answerOf(page, session, input);
      if ('redirect' in result) {
        // Only to a page of the console itself: a page builds the address from its own links.
        if (!result.redirect.startsWith(`${base}/`)) throw new Error(`A console page redirects under the console only: '${result.redirect}'`);
        ctx.status = 303;
        return ctx.redirect(result.redirect);
      }
      if ('download' in result) {
        const { bytes, name, sha256 } = result.download;
        ctx.type = 'application/octet-stream';
        ctx.set('Content-Disposition', contentDisposition(name));
        ctx.set('X-Content-SHA256', sha256);
        ctx.set('Cache-Control', 'private, no-store');
        ctx.body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        return;
      }
      if ('file' in result) {
        ctx.type = result.file.contentType;
        ctx.set('Content-Disposition', contentDisposition(result.file.name));
        ctx.set('Cache-Control', 'private, no-store');
        ctx.body = result.file.stream;
        return;
      }
      html(ctx, result.status, result.document);
    });
  }
  // Unknown paths under the console: the console's own 404 page, not the API's JSON.
  router.all('/{*rest}', () => {
    throw new ApiError(404, 'There is no such page.');
  });
  return router;
}

/** A page's answer with its content written out: the document's bytes and status. */
type Answer = Exclude<PageResult, { title: string }> | { document: Buffer; status: number };

/** A place to go after signing in: a path under the console, nothing else (no other site, no `//host`). */
function safeNext(base: string, next: unknown): string | undefined {
  if (typeof next !== 'string' || next.length > 2000) return undefined;
  return next.startsWith(`${base}/`) && !next.startsWith('//') && !/[\\\s]/.test(next) ? next : undefined;
}
