/**
 * Module hooks (registered by without-transparency-log.mjs): the store's log queries resolve to
 * a module that re-exports them all and replaces `appendLeaves` with one that appends nothing.
 */
const scheme = 'trailproof-without-log:';
const logQueries = /\/store\/queries\/log\.(js|ts)$/;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  // The replacement's own import of the real module passes through.
  if (context.parentURL?.startsWith(scheme) || !logQueries.test(resolved.url)) return resolved;
  return { url: scheme + encodeURIComponent(resolved.url), format: 'module', shortCircuit: true };
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith(scheme)) return nextLoad(url, context);
  const real = JSON.stringify(decodeURIComponent(url.slice(scheme.length)));
  // A local export wins over the same name from `export *`.
  const source = `export * from ${real};\nexport async function appendLeaves() {}\n`;
  return { format: 'module', source, shortCircuit: true };
}
