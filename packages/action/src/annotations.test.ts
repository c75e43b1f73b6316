import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { annotationsFor } from '@trailproof/action';
import { readJunitString, type JunitCase } from '@trailproof/junit';

const fixture = (path: string) => readFileSync(new URL(`./${path}`, import.meta.url), 'utf8');
const failuresOf = async (xml: string) => (await readJunitString(xml, 'report.xml')).failures;

/** A workspace holding the given (empty) source files. */
function workspace(files: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'trailproof-annotations-'));
  for (const f of files) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), f.endsWith('go.mod') ? 'module example.com/invoice\n\ngo 1.19\n' : '');
  }
  return dir;
}

describe('annotations of failed tests', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const ws = (files: string[]) => {
    const dir = workspace(files);
    dirs.push(dir);
    return dir;
  };

  it('Jest (real jest-junit output): the file attribute, the line from the first frame in it, the message with the stack', async () => {
    const dir = ws(['src/vat.test.js']);
    const [a] = annotationsFor(await failuresOf(fixture('fixtures/reruns/jest-rerun.xml').replaceAll('/tmp/jestrun/', `${dir}/`)), 10, dir);
    expect(a).to.include({ title: 'vat › vat always fails', file: 'src/vat.test.js', line: 16 });
    expect(a!.message.split('\n').slice(0, 4)).to.deep.equal([
      'Error: expect(received).toBe(expected) // Object.is equality',
      '',
      'Expected: 0',
      'Received: 19',
    ]);
  });

  it('pytest (real output): the file attribute, and the failing line from its report rather than the 0-based line attribute', async () => {
    const dir = ws(['tests/test_vat.py']);
    const [a] = annotationsFor(await failuresOf(fixture('fixtures/reruns/pytest-rerun.xml')), 10, dir);
    expect(a).to.include({ title: 'pytest › tests.test_vat › test_always_fails', file: 'tests/test_vat.py', line: 13 });
    expect(a!.message).to.match(/^AssertionError: reverse charge\nassert 19.0 == 0.0\ndef test_always_fails/);
  });

  it('Go (real gotestsum output): the file the test printed, in the package directory named by go.mod', async () => {
    const dir = ws(['go.mod', 'vat_test.go']);
    const annotations = annotationsFor(await failuresOf(fixture('fixtures/reruns/gotestsum-rerun.xml')), 2, dir);
    expect(annotations.map((a) => [a.title, a.file, a.line])).to.deep.equal([
      ['example.com/invoice › TestFlakyRate', 'vat_test.go', 13],
      ['example.com/invoice › TestAlwaysFails', 'vat_test.go', 18],
    ]);
  });

  it("Java (Surefire): the frame's class resolved under the usual source roots, in a module too", async () => {
    const dir = ws(['billing/src/test/java/com/example/FlakyTest.java']);
    const failures = await failuresOf(fixture('../../junit/src/fixtures/surefire-rerun.xml'));
    expect(annotationsFor(failures, 10, dir).map((a) => [a.title, a.file, a.line])).to.deep.equal([
      ['com.example.FlakyTest › failsEveryTime', 'billing/src/test/java/com/example/FlakyTest.java', 20],
      ['com.example.FlakyTest › errorsOnRerun', undefined, undefined],
    ]);
  });

  it('a path outside the workspace, or a file that is not in it, gets no file; at most `max` annotations', async () => {
    const dir = ws(['app/tax.ts']);
    const c = (file: string | undefined, details: string): JunitCase => ({
      className: 'tax',
      name: 't',
      outcome: 'failure',
      time: null,
      flaky: false,
      suiteName: 's',
      details,
      ...(file ? { file } : {}),
    });
    const annotations = annotationsFor(
      [
        c('/elsewhere/tax.test.ts', 'at /elsewhere/tax.test.ts:3:1'),
        c(undefined, `Error\n    at f (/usr/lib/node/x.js:1:1)\n    at g (${dir}/node_modules/lib/a.js:2:2)\n    at h (${dir}/app/tax.ts:9:5)`),
        c(undefined, 'at missing/file.ts:4:2'),
        c('../outside.ts', ''),
      ],
      3,
      dir,
    );
    expect(annotations.map((a) => [a.file, a.line])).to.deep.equal([
      [undefined, undefined],
      ['app/tax.ts', 9],
      [undefined, undefined],
    ]);
  });
});
