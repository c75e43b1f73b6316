import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { findJunitFiles, patternLines } from '@trailproof/action';

describe('finding the JUnit files (junit-paths through @actions/glob)', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'trailproof-glob-'));
  for (const file of [
    'build/test-results/TEST-a.xml',
    'build/test-results/flaky/TEST-b.xml',
    'build/test-results/deep/er/TEST-c.xml',
    'build/test-results/notes.txt',
    'reports/junit.xml',
    'reports/old/junit.xml',
    'node_modules/x/junit.xml',
  ]) {
    mkdirSync(join(workspace, file, '..'), { recursive: true });
    writeFileSync(join(workspace, file), '<testsuite/>');
  }
  after(() => rmSync(workspace, { recursive: true, force: true }));
  const find = async (text: string) => (await findJunitFiles(patternLines(text), workspace)).map((f) => relative(workspace, f));

  it('a directory means the XML files below it, at any depth', async () => {
    expect(await find('build/test-results')).to.deep.equal([
      'build/test-results/TEST-a.xml',
      'build/test-results/deep/er/TEST-c.xml',
      'build/test-results/flaky/TEST-b.xml',
    ]);
  });

  it('`!` excludes a pattern or a whole directory; `#` lines are comments and blank lines are ignored', async () => {
    const text = [
      '# the unit tests',
      'build/test-results',
      '',
      '   # except the flaky ones',
      '!build/test-results/flaky',
      'reports/**/*.xml',
      '!reports/old/*.xml',
      '# node_modules/**/*.xml would be included if this were not a comment',
    ].join('\n');
    expect(await find(text)).to.deep.equal(['build/test-results/TEST-a.xml', 'build/test-results/deep/er/TEST-c.xml', 'reports/junit.xml']);
  });

  it('the same file matched twice is listed once; nothing matched is an empty list', async () => {
    expect(await find('reports/junit.xml\nreports/*.xml\nreports')).to.deep.equal(['reports/junit.xml', 'reports/old/junit.xml']);
    expect(await find('nothing/*.xml')).to.deep.equal([]);
  });
});
