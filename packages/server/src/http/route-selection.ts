/**
 * @koa/router matches a request by testing every layer's regular expression in turn (74 for the
 * API): this narrows `router.match` to the layers whose literal path segment after the prefix
 * could be the request's, and leaves the answer what a full scan gives (same layers, same order).
 */
import type Router from '@koa/router';
import type { Layer, MatchResult } from '@koa/router';

/** A literal path segment that path-to-regexp matches as itself, case-insensitively at most. */
const literalSegment = /^[A-Za-z0-9._~-]+$/;
/** A parameter that matches exactly one segment (`[^/]+`), no more. */
const paramSegment = /^:[A-Za-z_][A-Za-z0-9_]*$/;
const ascii = /^[\x00-\x7f]*$/;

/**
 * The literal segment `k` of `layer`'s path (lowercased), when every segment up to it is a
 * literal or a one-segment parameter: then the layer matches only paths whose segment `k` is
 * that literal. Null (the layer is tried for every path) otherwise: middleware, regular
 * expressions, wildcards, optional parts, prefix matches.
 */
export function segmentKeyOf(layer: Pick<Layer, 'path' | 'methods' | 'opts'>, k: number): string | null {
  if (layer.methods.length === 0 || typeof layer.path !== 'string' || layer.opts.end === false || layer.opts.pathAsRegExp) return null;
  const segments = layer.path.split('/');
  if (segments.length <= k || segments[0] !== '') return null;
  for (let i = 1; i < k; i++) if (!literalSegment.test(segments[i]!) && !paramSegment.test(segments[i]!)) return null;
  const key = segments[k]!;
  return literalSegment.test(key) ? key.toLowerCase() : null;
}

/** The segment `k` of a request path (lowercased) when it can be compared with the layers' keys; null means "try every layer". */
function requestKeyOf(path: string, k: number): string | null {
  let start = 0;
  for (let i = 0; i < k; i++) {
    start = path.indexOf('/', start) + 1;
    if (start === 0) return '';
  }
  const end = path.indexOf('/', start);
  const segment = end < 0 ? path.slice(start) : path.slice(start, end);
  // Case-insensitive expressions may match other scripts' letters to ASCII ones (Unicode folding): scan them all.
  return ascii.test(segment) ? segment.toLowerCase() : null;
}

interface Index {
  stack: Layer[];
  length: number;
  prefix: string | undefined;
  k: number;
  /** The layers that may match a path with this key, in stack order. */
  byKey: Map<string, Layer[]>;
  /** The layers that may match a path of any other key. */
  unkeyed: Layer[];
}

function indexOf(router: Router): Index {
  const prefix = router.opts.prefix;
  const k = (prefix ?? '').replace(/\/$/, '').split('/').length;
  const keys = router.stack.map((layer) => segmentKeyOf(layer, k));
  const byKey = new Map<string, Layer[]>();
  for (const key of new Set(keys))
    if (key !== null)
      byKey.set(
        key,
        router.stack.filter((_, i) => keys[i] === null || keys[i] === key),
      );
  const unkeyed = router.stack.filter((_, i) => keys[i] === null);
  return { stack: router.stack, length: router.stack.length, prefix, k, byKey, unkeyed };
}

/** What `Router.prototype.match` does, over `layers` rather than the whole stack. */
function matchAmong(layers: readonly Layer[], path: string, method: string): MatchResult {
  const result: MatchResult = { path: [], pathAndMethod: [], route: false };
  const normalizedMethod = method.toUpperCase();
  for (const layer of layers) {
    if (!layer.match(path)) continue;
    result.path.push(layer);
    if (layer.methods.length === 0 || layer.methods.includes(normalizedMethod)) {
      result.pathAndMethod.push(layer);
      if (layer.methods.length > 0) result.route = true;
    }
  }
  return result;
}

/**
 * Makes `router.match` try only the layers a path could match. The index is built again when
 * layers are added or the prefix changes after this call (a host app adding its own routes).
 */
export function selectRoutesBySegment(router: Router): void {
  let index = indexOf(router);
  router.match = (path: string, method: string) => {
    if (index.stack !== router.stack || index.length !== router.stack.length || index.prefix !== router.opts.prefix) index = indexOf(router);
    const key = requestKeyOf(path, index.k);
    const layers = key === null ? index.stack : (index.byKey.get(key) ?? index.unkeyed);
    return matchAmong(layers, path, method);
  };
}
