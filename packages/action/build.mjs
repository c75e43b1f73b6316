// Bundles the Action and the CLI into single committed files (deterministic: same sources, same bytes).
import { chmodSync } from 'node:fs';
import { build } from 'esbuild';

// Some bundled dependencies are CommonJS and call require(); give the ESM bundle one.
const requireShim = "import { createRequire as __trailproofCreateRequire } from 'node:module';\nconst require = __trailproofCreateRequire(import.meta.url);";
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  legalComments: 'eof',
  logLevel: 'warning',
  charset: 'utf8',
};

await build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js', banner: { js: requireShim } });
await build({ ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: `#!/usr/bin/env node\n${requireShim}` } });
chmodSync('dist/cli.js', 0o755);
