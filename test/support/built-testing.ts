/**
 * The server's test kit as built (packages/server/dist/testing.js), for the files whose time goes
 * into the store's worker threads: under tsx each thread (the SQLite writer, the checkpointer, one
 * per `verify`) registers the loader and compiles the sources before its first job, about a second
 * of CPU each, where the built thread loads plain JavaScript (bench/results/suite-times-2026-12-04.md).
 * Loaded after the build, not imported: mocha imports the test files before its global set-up
 * (test/support/build-first.ts) builds, so a static import could load a stale dist/.
 */
import type * as Testing from '@trailproof/server/testing';
import { buildPackages } from './processes.ts';

let loaded: Promise<typeof Testing> | null = null;

/** The built test kit, once `pnpm build` has run in this process; the same API as `@trailproof/server/testing`. */
export function builtTesting(): Promise<typeof Testing> {
  loaded ??= buildPackages().then(() => import(new URL('../../packages/server/dist/testing.js', import.meta.url).href) as Promise<typeof Testing>);
  return loaded;
}
