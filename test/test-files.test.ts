// @database
/**
 * The PostgreSQL pass runs the test files tagged `// @database` on their first line
 * (scripts/test-files.sh): every test file that can reach the test database must carry the tag,
 * or it is silently left out of that pass. A file reaches it by importing
 * @trailproof/server/testing, reading TRAILPROOF_TEST_DATABASE, or importing a helper (not a
 * test) that does, itself or through another helper.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { runProcess } from './support/processes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const tag = '// @database';
const reachesDirectly = /@trailproof\/server\/testing|TRAILPROOF_TEST_DATABASE/;
const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The test files (of `sources`: path to text) that reach the test database, directly or through helpers. */
function reachingTests(sources: ReadonlyMap<string, string>): string[] {
  const isTest = (path: string) => /\.test\.tsx?$/.test(path);
  const helpers = new Set<string>();
  const reaches = (text: string) =>
    reachesDirectly.test(text) || (helpers.size > 0 && new RegExp(`/(${[...helpers].map(escaped).join('|')})\\.tsx?['"]`).test(text));
  // Helpers by file name, until no new one turns up.
  for (let before = -1; before !== helpers.size; ) {
    before = helpers.size;
    for (const [path, text] of sources) if (!isTest(path) && reaches(text)) helpers.add(basename(path).replace(/\.tsx?$/, ''));
  }
  return [...sources].filter(([path, text]) => isTest(path) && reaches(text)).map(([path]) => path);
}

/** Tests that reach the database without the tag, and tagged tests that do not reach it. */
function tagProblems(sources: ReadonlyMap<string, string>): { untagged: string[]; needlesslyTagged: string[] } {
  const reaching = new Set(reachingTests(sources));
  const tagged = (text: string) => text.split('\n', 1)[0] === tag;
  const tests = [...sources].filter(([path]) => /\.test\.tsx?$/.test(path));
  return {
    untagged: tests.filter(([path, text]) => reaching.has(path) && !tagged(text)).map(([path]) => path),
    needlesslyTagged: tests.filter(([path, text]) => !reaching.has(path) && tagged(text)).map(([path]) => path),
  };
}

/** The TypeScript files of the packages' sources, the examples and test/, by path from the repository. */
function repositorySources(): Map<string, string> {
  const dirs = [...readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p, 'src')), join(root, 'examples'), join(root, 'test')];
  const sources = new Map<string, string>();
  for (const dir of dirs) {
    for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      const path = join(entry.parentPath, entry.name);
      if (entry.isFile() && /\.tsx?$/.test(entry.name) && !path.includes('/node_modules/')) sources.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  }
  return sources;
}

describe('the PostgreSQL pass (scripts/test-files.sh postgres)', () => {
  it('every test file that reaches the test database is tagged, and only those', () => {
    expect(tagProblems(repositorySources())).to.deep.equal({ untagged: [], needlesslyTagged: [] });
  });

  it('finds an untagged test that reaches the database directly or through helpers', () => {
    const sources = new Map([
      ['test/support/server-helper.ts', "import { startTestServer } from '@trailproof/server/testing';"],
      ['test/support/story.ts', "import { helper } from './server-helper.ts';"],
      ['test/direct.test.ts', "import { startTestServer } from '@trailproof/server/testing';"],
      ['test/through-helpers.test.ts', "import { story } from './support/story.ts';"],
      ['test/tagged.test.ts', `${tag}\nimport { story } from './support/story.ts';`],
      ['test/pure.test.ts', "import { expect } from 'chai';"],
      ['test/tagged-pure.test.ts', `${tag}\nimport { expect } from 'chai';`],
    ]);
    expect(tagProblems(sources)).to.deep.equal({
      untagged: ['test/direct.test.ts', 'test/through-helpers.test.ts'],
      needlesslyTagged: ['test/tagged-pure.test.ts'],
    });
  });

  it('runs exactly the tagged files', async () => {
    const listed = await runProcess('bash', ['scripts/test-files.sh', 'postgres'], { cwd: root });
    expect(listed.status).to.equal(0);
    const tagged = [...repositorySources()].filter(([path, text]) => /\.test\.ts$/.test(path) && text.startsWith(`${tag}\n`)).map(([path]) => path);
    expect(listed.stdout.trim().split('\n').sort()).to.deep.equal(tagged.sort());
  });

  it('runs every browser test once, in the PostgreSQL pass: each is tagged, and the SQLite pass leaves it out', async () => {
    const listed = async (pass: string) => (await runProcess('bash', ['scripts/test-files.sh', pass], { cwd: root })).stdout.trim().split('\n');
    const browser = [...repositorySources().keys()].filter((path) => /\.browser\.test\.ts$/.test(path)).sort();
    expect(browser).to.have.length.above(0);
    const [sqlite, postgres, node24] = await Promise.all([listed('sqlite'), listed('postgres'), listed('node24')]);
    expect(postgres.filter((path) => browser.includes(path)).sort()).to.deep.equal(browser);
    expect([...sqlite, ...node24].filter((path) => browser.includes(path))).to.deep.equal([]);
    expect(sqlite.length, 'every other test file').to.equal([...repositorySources().keys()].filter((path) => /\.test\.ts$/.test(path)).length - browser.length);
  });

  it('splits each pass into the files run two at a time and those run alone, each file in one part', async () => {
    const listed = async (...args: string[]) =>
      (await runProcess('bash', ['scripts/test-files.sh', ...args], { cwd: root })).stdout.split('\n').filter(Boolean);
    for (const pass of ['sqlite', 'postgres', 'node24']) {
      const [all, together, alone] = await Promise.all([listed(pass), listed(pass, 'together'), listed(pass, 'alone')]);
      expect([...together, ...alone].sort(), pass).to.deep.equal([...all].sort());
      expect(
        together.filter((path) => alone.includes(path)),
        pass,
      ).to.deep.equal([]);
      expect(
        together.filter((path) => path.startsWith('test/hostile/')),
        pass,
      ).to.deep.equal([]);
    }
    // It stops the database server that the other files of the pass use.
    expect(await listed('postgres', 'alone')).to.include('test/postgres-faults.test.ts');
    expect((await runProcess('bash', ['scripts/test-files.sh', 'sqlite', 'apart'], { cwd: root })).status).to.equal(2);
  });
});
