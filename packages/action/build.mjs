// Bundles the Action and the CLI into single committed files (deterministic: same sources, same bytes).
import { chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// Paths are the package's, wherever the build is started from (`node packages/action/build.mjs` at the root too).
const here = fileURLToPath(new URL('.', import.meta.url));

// Some bundled dependencies are CommonJS and call require(); give the ESM bundle one.
const requireShim = "import { createRequire as __trailproofCreateRequire } from 'node:module';\nconst require = __trailproofCreateRequire(import.meta.url);";
/**
 * @actions/core imports @actions/http-client (and with it undici, ~0.8 MB) for OIDC tokens, which
 * this action never asks for. Marking those packages free of side effects lets esbuild drop them
 * when nothing uses them; were something to use them, they would still be bundled.
 */
const unusedUnlessCalled = {
  name: 'unused-unless-called',
  setup(b) {
    b.onResolve({ filter: /^(@actions\/http-client|undici|tunnel)(\/|$)/ }, async (args) => {
      if (args.pluginData?.resolved) return undefined;
      const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { resolved: true } });
      return { ...resolved, sideEffects: false };
    });
  },
};
const common = {
  absWorkingDir: here,
  plugins: [unusedUnlessCalled],
  bundle: true,
  platform: 'node',
  // The workspace's packages from their sources, so the bundle never depends on a stale dist/.
  conditions: ['source'],
  target: 'node20',
  format: 'esm',
  legalComments: 'eof',
  logLevel: 'warning',
  charset: 'utf8',
};

await build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js', banner: { js: requireShim } });
await build({ ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: `#!/usr/bin/env node\n${requireShim}` } });
chmodSync(`${here}dist/cli.js`, 0o755);
