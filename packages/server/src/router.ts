/**
 * `createRouter` turns a list of plugins into a @koa/router that any Koa app can mount. Every
 * route carries its own middleware chain (errors → auth → body → validation → handler), so
 * nothing here touches the host app's other routes.
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { buildOpenApiDocument, createValidator, limits, type Operation } from '@trailproof/schema';
import { asBuffer } from './support/buffers.ts';
import { storeTokens, type Authenticator, type Principal } from './auth.ts';
import { ApiError, badRequest, errorMiddleware } from './http/errors.ts';
import { assertStorableText, multipartParser, parseJsonBody, type ParsedMultipart } from './http/body.ts';
import { ByteBudget, defaultMaxBodyBytesInFlight, holdBodyBytes } from './http/body-budget.ts';
import { FailedAuthLimit } from './http/failed-auth-limit.ts';
import { healthCheck, type HealthCheckOptions } from './http/health.ts';
import { selectRoutesBySegment } from './http/route-selection.ts';
import { silentLogger, type Logger } from './logger.ts';
import type { HandlerInput, Plugin } from './plugin.ts';
import { storePart, type PluginQueryKey, type PluginStoreKey } from './plugin-store.ts';
import type { Store } from './store/types.ts';
import { defaultPlugins } from './operations/index.ts';

export interface RouterOptions {
  store: Store;
  /** Who may call; tokens in the store by default. */
  auth?: Authenticator;
  /** The operations served; `defaultPlugins` (SPEC.md's six, the evidence model, verify) by default. */
  plugins?: readonly Plugin<any>[];
  /** Path prefix of every route; `/api/v2` by default. */
  prefix?: string;
  /** Where 5xx causes are logged. */
  logger?: Logger;
  /** The health check at `{prefix}/health` (no token; 200 once the database answered a read, else 503). */
  health?: HealthCheckOptions;
  /**
   * Most bytes of request bodies held at once (256 MiB by default): a body is held from when its
   * token is accepted until it is answered, and one that does not fit is refused with 503 and
   * `Retry-After` before it is read. Memory for uploads peaks at about twice this.
   */
  maxUploadBytesInFlight?: number;
  /**
   * Failed token checks one client address may make a minute (30 by default); beyond them its
   * requests with a token answer 429 with `Retry-After` until the budget refills.
   */
  failedTokenChecksPerMinute?: number;
  /** The table of failed checks, shared with the console and badges by `createApp`; one of the router's own by default. */
  failedAuthLimit?: FailedAuthLimit;
}

/** Raised at start-up when two plugins claim the same operation id or method and path, or a plugin claims a route the router serves itself. */
export class DuplicateOperationError extends Error {
  override readonly name = 'DuplicateOperationError';
  readonly code = 'TRAILPROOF_DUPLICATE_OPERATION';
}

/**
 * Builds the router; throws `DuplicateOperationError` when two plugins collide, and
 * `StoreDeclarationError` when a plugin declares a part of the store it may not have.
 */
export function createRouter(options: RouterOptions): Router {
  const { store, prefix = '/api/v2', logger = silentLogger } = options;
  const plugins = options.plugins ?? defaultPlugins;
  const auth = options.auth ?? storeTokens(store);
  const authLimit = options.failedAuthLimit ?? new FailedAuthLimit({ perMinute: options.failedTokenChecksPerMinute });
  assertUnique(plugins.map((p) => p.operation));
  const validators = createValidator(plugins.map((p) => p.operation));
  // Built on its first request: few processes are ever asked for it, and every start-up paid for it.
  let openApi: string | undefined;

  const router = new Router({ prefix });
  const renderErrors = errorMiddleware(logger);
  const bodyBudget = new ByteBudget(options.maxUploadBytesInFlight ?? defaultMaxBodyBytesInFlight);
  // Every answer of the API is what its Content-Type says: browsers must not guess otherwise.
  router.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    return next();
  });

  router.get('/openapi.json', renderErrors, (ctx) => {
    ctx.type = 'application/json';
    ctx.body = openApi ??= JSON.stringify(
      buildOpenApiDocument(
        plugins.map((p) => p.operation),
        { basePath: prefix },
      ),
    );
  });
  router.get('/health', renderErrors, healthCheck(store, logger, options.health));

  for (const plugin of plugins) {
    const { operation } = plugin;
    // Built once: the handler gets the members of the store its plugin declared, and nothing else.
    const handlerStore = storePart(store, operation.id, plugin);
    const validate = validators(operation.id);
    const maxBodyBytes = maxBodyBytesOf(operation);
    const readBody: Middleware[] =
      operation.body?.kind === 'multipart'
        ? [holdBodyBytes(bodyBudget, maxBodyBytes), multipartParser(operation.body)]
        : operation.body?.kind === 'json'
          ? [holdBodyBytes(bodyBudget, maxBodyBytes), parseJsonBody]
          : [];

    const authenticate: Middleware = async (ctx, next) => {
      // What the error middleware may read and discard of a body this route refuses.
      ctx.state.maxBodyBytes = maxBodyBytes;
      ctx.state.principal = await authorize(auth, authLimit, operation, ctx);
      return next();
    };

    const handle: Middleware = async (ctx) => {
      // Query values reach SQL as text: NUL and lone surrogates are refused as in bodies.
      assertStorableText(ctx.query, 'query.', 'query');
      const params = validate.params(ctx.params as Record<string, string>);
      const query = validate.query(ctx.query as Record<string, string | string[]>);
      const parsed = ctx.state.multipart as ParsedMultipart | undefined;
      const rawData = parsed ? parsed.data : ctx.state.jsonBody;
      const data = validate.data(rawData);
      if (!params.ok || !query.ok || !data.ok) {
        const errors = { ...(params.ok ? {} : params.errors), ...(query.ok ? {} : query.errors), ...(data.ok ? {} : data.errors) };
        throw badRequest('Input payload validation failed', errors);
      }

      const input: HandlerInput<Operation, PluginStoreKey, PluginQueryKey> = {
        params: params.value,
        query: query.value,
        data: data.value as never,
        files: parsed?.files ?? {},
        principal: ctx.state.principal as Principal,
        store: handlerStore as never,
        now: Date.now() / 1000,
        apiBase: apiBase(ctx, prefix),
        originalUrl: ctx.originalUrl,
      };
      const result = await plugin.handler(input as never);
      ctx.status = result.status;
      if (result.headers) ctx.set(result.headers);
      if ('raw' in result) {
        ctx.type = result.contentType;
        ctx.body = asBuffer(result.raw);
      } else if ('stream' in result) {
        ctx.type = result.contentType;
        ctx.body = result.stream;
      } else if ('json' in result) {
        ctx.type = 'application/json';
        ctx.body = result.json;
      } else {
        ctx.type = 'application/json';
        ctx.body = JSON.stringify(result.body);
      }
    };

    const method = operation.method.toLowerCase() as 'get' | 'put' | 'post' | 'patch' | 'delete';
    router[method](operation.id, toRouterPath(operation.path), renderErrors, authenticate, ...readBody, handle);
  }
  jsonAllowedMethods(router);
  selectRoutesBySegment(router);
  return router;
}

/**
 * Makes `router.allowedMethods()` answer its 405 (known path, other method) and 501 (a method no
 * route has) in the API's JSON error shape, keeping the `Allow` header (RFC 9110 requires it on
 * 405), so a host app that mounts the router gets the same answers as the standalone server.
 */
function jsonAllowedMethods(router: Router): void {
  const plain = router.allowedMethods.bind(router);
  router.allowedMethods = (options) => {
    const inner = plain(options);
    return async (ctx, next) => {
      await inner(ctx, next);
      if (ctx.body != null) return;
      const message = ctx.status === 405 ? 'Method not allowed' : ctx.status === 501 ? 'Not implemented' : undefined;
      if (!message) return;
      ctx.type = 'application/json';
      ctx.body = JSON.stringify({ message });
    };
  };
}

/** Room for a multipart body's boundaries and part headers, beyond its parts' contents. */
const multipartOverheadBytes = 64 * 1024;

/** The largest body `operation` accepts: its files and `data_json` (multipart), or a JSON body. */
function maxBodyBytesOf(operation: Operation): number {
  if (operation.body?.kind === 'multipart') {
    return Object.values(operation.body.files).reduce((sum, file) => sum + file.maxBytes, limits.dataJsonBytes + multipartOverheadBytes);
  }
  return limits.dataJsonBytes;
}

/** `/trails/{org}/{flow_name}` → `/trails/:org/:flow_name` */
const toRouterPath = (path: string) => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/** Checks the token and that it may do this operation in the path's organisation. */
async function authorize(auth: Authenticator, limit: FailedAuthLimit, operation: Operation, ctx: Context): Promise<Principal | null> {
  if (operation.access === 'none') return null;
  const principal = await limit.authenticate(ctx, auth, ctx.get('authorization') || undefined);
  if (!principal) {
    throw new ApiError(401, 'Authentication required: send Authorization: Bearer <token>', undefined, { 'WWW-Authenticate': 'Bearer' });
  }
  // Another organisation's path gets the same answer whether or not anything exists there.
  const org = (ctx.params as Record<string, string | undefined>).org;
  if (org !== undefined && org !== principal.org) throw new ApiError(403, "You don't have permission to access this resource");
  if (operation.access === 'write' && principal.readOnly) throw new ApiError(403, 'This token is read-only');
  return principal;
}

/** The path under which the API answers, as the client sees it (mounts included). */
function apiBase(ctx: Context, prefix: string): string {
  const original = ctx.originalUrl.split('?')[0] ?? '';
  const mount = original.endsWith(ctx.path) ? original.slice(0, original.length - ctx.path.length) : '';
  return mount + prefix;
}

/** What the router serves itself (`openapi.json`, `health`): no plugin may answer them. */
const ownRoutes = new Map([
  ['GET /openapi.json', 'the OpenAPI document'],
  ['GET /health', 'the health check'],
]);

function assertUnique(operations: Operation[]) {
  const ids = new Set<string>();
  const routes = new Map<string, string>();
  for (const operation of operations) {
    if (ids.has(operation.id)) throw new DuplicateOperationError(`Two plugins define the operation '${operation.id}'`);
    ids.add(operation.id);
    const route = `${operation.method} ${operation.path.replace(/\{[^}]+\}/g, '{}')}`;
    const own = ownRoutes.get(route);
    if (own) throw new DuplicateOperationError(`Operation '${operation.id}' answers ${operation.method} ${operation.path}, where the router serves ${own}`);
    const other = routes.get(route);
    if (other) throw new DuplicateOperationError(`Operations '${other}' and '${operation.id}' both answer ${operation.method} ${operation.path}`);
    routes.set(route, operation.id);
  }
}
