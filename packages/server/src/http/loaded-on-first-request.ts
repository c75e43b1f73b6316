/**
 * Middleware built on the first request under a path prefix: the console and the badges load
 * their modules (page rendering, fonts) only once someone asks for them, so that a server starts
 * without them. Requests elsewhere pass on without loading anything.
 */
import type { Middleware } from 'koa';

// A router's middleware wants its own context type, which Koa hands it at run time.
export function loadedOnFirstRequest(prefix: string, load: () => Promise<Middleware<any, any>>): Middleware {
  let loaded: Promise<Middleware<any, any>> | undefined;
  return async (ctx, next) => {
    if (ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) return next();
    const middleware = await (loaded ??= load());
    return middleware(ctx, next);
  };
}
