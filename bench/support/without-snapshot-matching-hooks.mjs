/**
 * Module hooks (registered by without-snapshot-matching.mjs): the module of running artifacts
 * (domain/running) resolves to one that re-exports it all and replaces `fingerprintEvidence` with
 * one that matches nothing and reads nothing.
 */
const scheme = 'trailproof-without-matching:';
const running = /\/domain\/running\.(js|ts)$/;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  // The replacement's own import of the real module passes through.
  if (context.parentURL?.startsWith(scheme) || !running.test(resolved.url)) return resolved;
  return { url: scheme + encodeURIComponent(resolved.url), format: 'module', shortCircuit: true };
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith(scheme)) return nextLoad(url, context);
  const real = JSON.stringify(decodeURIComponent(url.slice(scheme.length)));
  // A local export wins over the same name from `export *`.
  const source =
    `export * from ${real};\n` +
    'export async function fingerprintEvidence(_store, _evaluator, _organizationId, fingerprints) {\n' +
    '  return new Map([...new Set(fingerprints)].map((f) => [f, { match: undefined, compliant: false }]));\n' +
    '}\n';
  return { format: 'module', source, shortCircuit: true };
}
