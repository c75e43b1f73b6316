/**
 * Middleware built on the first request under a path prefix: the console, the badges and the
 * metrics load their modules (page rendering, fonts, prom-client) only once someone asks for them,
 * so that a server starts without them. Requests elsewhere pass on without loading anything.
 */
import type { Middleware } from 'koa';

/** `prefix`: the paths it serves (null: every path); `now`: load at once rather than on the first request. */
// A router's middleware wants its own context type, which Koa hands it at run time.
export function loadedOnFirstRequest(prefix: string | null, load: () => Promise<Middleware<any, any>>, options: { now?: boolean } = {}): Middleware {
  let loaded: Promise<Middleware<any, any>> | undefined = options.now ? load() : undefined;
  // Handled here too: a load started at once that fails before any request asks must not end the process.
  loaded?.catch(() => {});
  return async (ctx, next) => {
    if (prefix !== null && ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) return next();
    const middleware = await (loaded ??= load());
    return middleware(ctx, next);
  };
}
