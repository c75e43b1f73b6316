/**
 * Embedding Trailproof in an existing Koa app: the host keeps its own routes and error
 * handling; the Trailproof router answers only below its prefix.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { createRouter, type Store } from '@trailproof/server';

/** The host application: a health check and a page of its own, plus Trailproof under `/compliance/api/v2`. */
export function createHostApp(store: Store): Koa {
  const app = new Koa();

  // The host's own routes, untouched by Trailproof's auth and error handling.
  const own = new Router();
  own.get('/health', (ctx) => {
    ctx.body = { ok: true };
  });
  own.get('/', (ctx) => {
    ctx.type = 'text/html';
    ctx.body = '<h1>Acme internal portal</h1>';
  });
  app.use(own.routes());
  app.use(own.allowedMethods());

  // Two lines mount the evidence API.
  const trailproof = createRouter({ store, prefix: '/compliance/api/v2' });
  app.use(trailproof.routes());
  app.use(trailproof.allowedMethods());
  return app;
}
