/**
 * The server's test kit as built (packages/server/dist/testing.js), for the files whose time goes
 * into the store's worker threads: under tsx each thread (the SQLite writer, the checkpointer, one
 * per `verify`) registers the loader and compiles the sources before its first job, about a second
 * of CPU each, where the built thread loads plain JavaScript (bench/results/suite-times-2026-12-04.md).
 * Loaded after the build, not imported: mocha imports the test files before its global set-up
 * (test/support/build-first.ts) builds, so a static import could load a stale dist/.
 * On PostgreSQL the store starts no threads, and the sources, which these files load anyway, are
 * used instead of a second copy of the server built beside them.
 */
import type * as Server from '@trailproof/server';
import * as Testing from '@trailproof/server/testing';
import { buildPackages } from './processes.ts';

const loaded = new Map<string, Promise<unknown>>();

/** packages/server/dist/NAME.js, imported once `pnpm build` has run in this process. */
function built<T>(name: string): Promise<T> {
  if (!loaded.has(name))
    loaded.set(
      name,
      buildPackages().then(() => import(new URL(`../../packages/server/dist/${name}.js`, import.meta.url).href)),
    );
  return loaded.get(name) as Promise<T>;
}

/** The built test kit on SQLite (the sources' on PostgreSQL): the same API as `@trailproof/server/testing`. */
export const builtTesting = (): Promise<typeof Testing> => (Testing.testBackend === 'postgres' ? Promise.resolve(Testing) : built('testing'));

/** The built package's entry on SQLite (the sources' on PostgreSQL): the same API as `@trailproof/server`. */
export const builtServer = (): Promise<typeof Server> =>
  Testing.testBackend === 'postgres' ? (import('@trailproof/server') as Promise<typeof Server>) : built('index');
