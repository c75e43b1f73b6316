/**
 * The built packages, as they run in production: `pnpm build` (tsc -b) once per test process, and
 * an environment for their processes without the `source` condition the tests run under
 * (test/support/sources.cjs), so that node loads dist/ and nothing else.
 */
import { fileURLToPath } from 'node:url';
import { runProcess } from './processes.ts';

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

let built: Promise<void> | null = null;

/** Builds the packages to JavaScript (incremental: seconds when nothing changed). */
export function buildPackages(): Promise<void> {
  built ??= runProcess('pnpm', ['build'], { cwd: repositoryRoot, env: builtEnv() }).then((result) => {
    if (result.status !== 0) throw new Error(`pnpm build exited ${result.status}: ${result.stdout}${result.stderr}`);
  });
  return built;
}

/** process.env and `extra`, without NODE_OPTIONS (which carries the tests' `--conditions=source`). */
export function builtEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _options, ...environment } = process.env;
  return { ...environment, ...extra };
}
