// Bundles the `trailproof` command (dist/cli/main.js, tsc's output) and the worker threads it starts
// into dist/bundle/, which bin/trailproof.js runs: Node's ES module loader resolved, read and linked
// each of about 1,350 modules one by one before `serve` listened, most of the start-up's time.
// Run after `tsc -b` (the root's `pnpm build` and this package's prepack do both).
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// Paths are the package's, wherever the build is started from (`node packages/server/build-cli.mjs` at the root too).
const here = fileURLToPath(new URL('.', import.meta.url));
const outdir = 'dist/bundle';

// Each worker entry keeps its file name beside the chunks: threads.ts finds it as a sibling of its caller's module.
const workers = [
  'store/sqlite/reader-thread-worker',
  'store/sqlite/chain-verify-worker',
  'store/sqlite/checkpoint-worker',
  'store/sqlite/writer-thread-worker',
  'domain/sbom/sbom-worker',
  'domain/custom-types/judge-worker',
  'console/junit-cases-worker',
];

const baseName = (path) => path.slice(path.lastIndexOf('/') + 1);

/** JSON (mime-db's 200 KB tables among them) as a JSON.parse of a string, which V8 reads several times faster than an object literal. */
const jsonAsParse = {
  name: 'json-as-parse',
  setup(b) {
    b.onLoad({ filter: /\.json$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return { contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(text)))});`, loader: 'js' };
    });
  },
};

const built = await build({
  absWorkingDir: here,
  entryPoints: [{ in: 'dist/cli/main.js', out: 'main' }, ...workers.map((name) => ({ in: `dist/${name}.js`, out: baseName(name) }))],
  outdir,
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Native addons and what loads its files by path at run time stay installed packages.
  external: ['better-sqlite3', 'better-sqlite3-napi', 'jq-wasm', 'pg-native'],
  // Some bundled dependencies are CommonJS and call require(); give the ESM chunks one.
  banner: { js: "import { createRequire as __trailproofCreateRequire } from 'node:module';\nconst require = __trailproofCreateRequire(import.meta.url);" },
  plugins: [jsonAsParse],
  legalComments: 'eof',
  charset: 'utf8',
  logLevel: 'warning',
  write: false,
});

// Only what changed is written (each file renamed into place), and only files no longer built are removed:
// test processes build at their start while servers of another pass may be loading these files.
const target = join(here, outdir);
await mkdir(target, { recursive: true });
const kept = new Set();
for (const file of built.outputFiles) {
  kept.add(file.path);
  const current = await readFile(file.path).catch(() => null);
  if (current?.equals(file.contents)) continue;
  await writeFile(`${file.path}.tmp`, file.contents);
  await rename(`${file.path}.tmp`, file.path);
}
for (const name of await readdir(target)) if (!kept.has(join(target, name))) await rm(join(target, name), { force: true });
