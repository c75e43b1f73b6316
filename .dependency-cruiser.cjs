/**
 * The import rules of the packages' sources, checked by test/import-graph.test.ts (run by `pnpm test`)
 * and by hand with `npx depcruise packages --config .dependency-cruiser.cjs`.
 */
const src = '^packages/[^/]+/src/';
const server = '^packages/server/src/';

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
      name: 'store-not-to-http-or-console',
      comment: 'The store answers queries with typed rows; HTTP (routes, API JSON, links) and the console sit above it and render those rows themselves.',
      severity: 'error',
      from: { path: `${server}store/` },
      to: { path: `${server}(http|console)/` },
    },
    {
      name: 'store-not-to-operations',
      comment: 'Operations call the store, never the other way round.',
      severity: 'error',
      from: { path: `${server}store/` },
      to: { path: `${server}(operations|router|app|server|plugin|auth)(/|\\.ts$)` },
    },
    {
      name: 'domain-not-to-http',
      comment:
        "Evidence rules know nothing of HTTP: statuses, links and API JSON sit above them (http/, http/views/); an operation turns a rule's outcome or error into a status.",
      severity: 'error',
      from: { path: `${server}domain/` },
      to: { path: `${server}(http|operations|console|router|app|server|plugin|auth)(/|\\.ts$|-)` },
    },
    {
      name: 'operations-only-from-faces',
      comment:
        "Operations are the API's handlers: the router mounts them and the package's faces export them; shared views, lookups and rules live below them (http/views/, domain/), so that nothing else depends on an operation's file. The console's arrows to four operation files are listed until their helpers move (docs/internals.md).",
      severity: 'error',
      from: {
        path: server,
        pathNot: [
          `${server}operations/`,
          // The console's arrows: the next rule.
          `${server}console/`,
          `${server}(router|index|plugin-kit|internals|testing)\\.ts$`,
          '\\.test\\.tsx?$',
        ],
      },
      to: { path: `${server}operations/` },
    },
    {
      name: 'console-operations-known',
      comment: 'The console reaches these operation files only (lookups, the default window, the attachment header, one verification at a time): no new arrow.',
      severity: 'error',
      from: { path: `${server}console/`, pathNot: '\\.test\\.tsx?$' },
      to: { path: `${server}operations/`, pathNot: `${server}operations/(lookup|list-deployments|download-attachment|verify-evidence)\\.ts$` },
    },
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
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'default'], extensions: ['.ts', '.tsx', '.js'] },
  },
};
