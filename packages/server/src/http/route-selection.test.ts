import Router from '@koa/router';
import { expect } from 'chai';
import { createRouter, type Store } from '@trailproof/server';
import { segmentKeyOf, selectRoutesBySegment } from './route-selection.ts';

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'get', 'PROPFIND'];

/** Request paths near every route's: its own, in other cases, with trailing and doubled slashes, segments cut or added, odd values. */
function pathsNear(router: Router): string[] {
  const values = ['bench', 'A b', '%2F', 'ſ', 'K', 'x.json', ''];
  const paths = new Set([
    '',
    '/',
    '/api',
    '/api/',
    '/api/v2',
    '/api/v2/',
    '/API/V2/flows/bench',
    '/api/v2//flows',
    '/api/v2/ſearch/x/sha/y',
    '/api/v2/%66lows/x',
  ]);
  for (const layer of router.stack) {
    if (typeof layer.path !== 'string') continue;
    for (const value of values) {
      const path = layer.path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, value);
      for (const variant of [path, path.toUpperCase(), `${path}/`, `${path}//`, `${path}/more`, path.replace(/\/[^/]*$/, ''), path.replace('/api/v2', '')])
        paths.add(variant);
    }
  }
  return [...paths];
}

const asIndexes = (router: Router, result: ReturnType<Router['match']>) => ({
  path: result.path.map((layer) => router.stack.indexOf(layer)),
  pathAndMethod: result.pathAndMethod.map((layer) => router.stack.indexOf(layer)),
  route: result.route,
});

/** Every path and method matched by the narrowed `match` and by @koa/router's own full scan: the same layers, in the same order. */
function expectSameMatches(router: Router): number {
  let compared = 0;
  for (const path of pathsNear(router)) {
    for (const method of methods) {
      const full = Router.prototype.match.call(router, path, method);
      expect(asIndexes(router, router.match(path, method)), `${method} ${path}`).to.deep.equal(asIndexes(router, full));
      compared++;
    }
  }
  return compared;
}

// Routing never calls the store: the routes are built over one that has nothing.
const store = {} as Store;

describe('selectRoutesBySegment', () => {
  it("matches the API's router as a full scan does, for paths near every route in any method", () => {
    const router = createRouter({ store });
    expect(router.match).to.not.equal(Router.prototype.match);
    expect(expectSameMatches(router)).to.be.greaterThan(5_000);
  });

  it('matches as a full scan does with no prefix, and with layers added or the prefix changed after it was set up', () => {
    const router = createRouter({ store, prefix: '' });
    expectSameMatches(router);
    router.get('/artifacts/:org/extra', () => {});
    router.use('/flows', async (_ctx, next) => next());
    expect(router.match('/artifacts/bench/extra', 'GET').route).to.equal(true);
    expectSameMatches(router);
    router.prefix('/elsewhere/v3');
    expect(router.match('/elsewhere/v3/artifacts/bench/extra', 'GET').route).to.equal(true);
    expectSameMatches(router);
  });

  it('works on a plain router with regular expressions, wildcards and optional parts', () => {
    const router = new Router({ prefix: '/p' });
    router.get('/a/:x', () => {});
    router.get(/^\/p\/b\/.*$/, () => {});
    router.get('/c/*rest', () => {});
    router.get('/d{/:x}', () => {});
    router.get('/:any/e', () => {});
    selectRoutesBySegment(router);
    for (const path of ['/p/a/1', '/p/b/1', '/p/c/1/2', '/p/d', '/p/d/1', '/p/z/e', '/p/a/e', '/P/A/1/']) {
      expect(asIndexes(router, router.match(path, 'GET')), path).to.deep.equal(asIndexes(router, Router.prototype.match.call(router, path, 'GET')));
    }
  });

  it('keys only layers whose path up to the segment is literal or one-segment parameters', () => {
    const layer = (path: string, o: { methods?: string[]; end?: boolean } = {}) => ({ path, methods: o.methods ?? ['GET'], opts: { end: o.end ?? true } });
    expect(segmentKeyOf(layer('/api/v2/Artifacts/:org'), 3)).to.equal('artifacts');
    expect(segmentKeyOf(layer('/api/v2/openapi.json'), 3)).to.equal('openapi.json');
    expect(segmentKeyOf(layer('/api/:v/artifacts'), 3)).to.equal('artifacts');
    expect(segmentKeyOf(layer('/api/v2/:org'), 3)).to.equal(null);
    expect(segmentKeyOf(layer('/api/v2'), 3)).to.equal(null);
    expect(segmentKeyOf(layer('/api/v2/'), 3)).to.equal(null);
    expect(segmentKeyOf(layer('/api/*v/artifacts'), 3)).to.equal(null);
    expect(segmentKeyOf(layer('/api{/v2}/artifacts'), 3)).to.equal(null);
    expect(segmentKeyOf(layer('/api/v2/artifacts', { methods: [] }), 3)).to.equal(null);
    expect(segmentKeyOf(layer('/api/v2/artifacts', { end: false }), 3)).to.equal(null);
  });
});
