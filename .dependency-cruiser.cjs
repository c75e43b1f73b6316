/**
 * The import rules of the packages' sources, checked by test/import-graph.test.ts (run by `pnpm test`)
 * and by hand with `npx depcruise packages --config .dependency-cruiser.cjs`.
 */
const src = '^packages/[^/]+/src/';
const server = '^packages/server/src/';

/**
 * Arrows from the store to the HTTP layer that exist today. TODO(issue 32): the store's list
 * pages get their row-to-item serialisers from a views module owned by the HTTP side, and this
 * list empties.
 */
const knownStoreToHttp = [
  // `_links` of the deployments page (hrefs with the organisation's name) are built in the store.
  { from: `${server}store/queries/deployments\\.ts$`, to: `${server}http/links\\.ts$` },
];
const httpLayer = `${server}(http|operations)/`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles: each module can be read, tested and loaded without the ones that import it.',
      severity: 'error',
      from: { path: src },
      to: { circular: true },
    },
    {
      name: 'store-not-to-http',
      comment: 'The store answers queries; HTTP (routes, operations, API JSON) sits above it.',
      severity: 'error',
      from: { path: `${server}store/`, pathNot: knownStoreToHttp.map((known) => known.from) },
      to: { path: httpLayer },
    },
    ...knownStoreToHttp.map((known) => ({
      name: 'store-not-to-http',
      comment: 'A known arrow from the store to HTTP (TODO issue 32); no other.',
      severity: 'error',
      from: { path: known.from },
      to: { path: httpLayer, pathNot: known.to },
    })),
    {
      name: 'migrations-frozen',
      comment: 'A migration never changes: it imports only other migrations and kysely, never live code that could change under it.',
      severity: 'error',
      from: { path: `${server}store/migrations/` },
      // Node's own modules (node:crypto for the log's hashes in 0017) are the runtime, not live code.
      to: { pathNot: [`${server}store/migrations/`, 'node_modules/kysely/'], dependencyTypesNot: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '/dist/'] },
    // Type-only imports count: a cycle of types is still a cycle for a reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'default'], extensions: ['.ts', '.js'] },
  },
};
