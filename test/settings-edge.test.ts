/**
 * Settings are read at the edge: the server's command (packages/server/src/cli/) reads the
 * environment and hands the library options, so that code embedding the library gets what it
 * passes and nothing from its process. The test helper entry (testing.ts), which picks
 * the test database from the environment, is the one exception. The action's main.ts and cli.ts are
 * its edge and are not checked here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const root = fileURLToPath(new URL('..', import.meta.url));

/** `process.env`, `process?.env`, `process['env']` and `{ env } = process`. */
const environmentRead = /\bprocess\s*\??\.\s*env\b|\bprocess\s*\[\s*['"`]env['"`]\s*\]|\{[^}]*\benv\b[^}]*\}\s*=\s*process\b/;

/** The library's source files under `dir` (tests, which set up their own process, left out). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The files among `files` that read the environment, relative to the repository, each with its first such line. */
function environmentReaders(files: readonly string[]): string[] {
  return files.flatMap((file) => {
    const line = readFileSync(file, 'utf8')
      .split('\n')
      .findIndex((text) => environmentRead.test(text));
    return line < 0 ? [] : [`${relative(root, file)}:${line + 1}`];
  });
}

describe('settings read at the edge', () => {
  it('no process.env read in packages/server/src outside cli/ and testing.ts, nor in packages/schema/src or packages/junit/src', () => {
    const server = join(root, 'packages/server/src');
    const edge = [join(server, 'cli') + '/', join(server, 'testing.ts')];
    const library = [...sources(server), ...sources(join(root, 'packages/schema/src')), ...sources(join(root, 'packages/junit/src'))].filter(
      (file) => !edge.some((allowed) => file.startsWith(allowed)),
    );
    expect(library.length, 'the library files checked').to.be.greaterThan(100);
    expect(environmentReaders(library)).to.deep.equal([]);
  });

  it('finds each form of a read', () => {
    for (const text of ['process.env.X', "process['env']", 'process?.env', 'const { env } = process;', 'const { argv, env: e } = process']) {
      expect(environmentRead.test(text), text).to.equal(true);
    }
    expect(environmentRead.test('const environment = options.env;')).to.equal(false);
  });
});
