/**
 * Conformance of the JUnit reader against the real-world corpus in `packages/junit/test/corpus/`.
 * That folder's README.md gives the files' origin, licence and expectation format.
 */
import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JunitReadError, readJunitFile, type JunitCase, type JunitFileReport, type JunitSuiteResult } from './index.ts';

const CORPUS = fileURLToPath(new URL('../test/corpus/', import.meta.url));

interface Expected {
  parse_error?: string;
  suites_declared?: { name: string | null; tests: number; skipped: number; failures: number; errors: number }[];
  cases?: { class_name: string | null; test_name: string | null; result: string; time: number | null }[];
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.xml') ? [join(dir, e.name)] : [],
  );
}

const files = walk(CORPUS).sort();

function expectedOf(xml: string): Expected {
  return JSON.parse(readFileSync(xml.replace(/\.xml$/, '.expected.json'), 'utf8')) as Expected;
}

/**
 * The corpus comes from a Python project: an absent class name is `null` where the reader gives
 * '' (types.ts), and a case with `status="disabled"` is its own result "disabled" where the reader
 * counts it as skipped (README, "Rules").
 */
function corpusResult(result: string): string {
  return result === 'disabled' ? 'skipped' : result;
}

/**
 * How a file marked `parse_error` must be rejected, from that project's own error text (README of
 * the corpus): its JUnitXmlError ('Invalid format.': well-formed XML that is not JUnit) is our
 * 'not-junit', at the root element's line; its XMLSyntaxError (corrupt XML) is our 'corrupt', at
 * the line and column lxml gives ('..., line 11, column 22').
 */
function rejection(file: string, parseError: string): { kind: 'corrupt' | 'not-junit'; line: number; column?: number } {
  if (parseError.startsWith('JUnitXmlError(')) {
    const lines = readFileSync(file, 'utf8').split('\n');
    return { kind: 'not-junit', line: lines.findIndex((l) => /^\s*<[A-Za-z]/.test(l)) + 1 };
  }
  const at = /XMLSyntaxError\('[^']*, line (\d+), column (\d+)'\)/.exec(parseError);
  if (!at) throw new Error(`${file}: parse_error of a kind this test does not know: ${parseError}`);
  return { kind: 'corrupt', line: Number(at[1]), column: Number(at[2]) };
}

/** A report with every case, collected through `onCase` (the report itself keeps only failures). */
type WithCases = JunitFileReport & { cases: JunitCase[] };
const reports = new Map<string, WithCases>();
async function report(rel: string): Promise<WithCases> {
  let r = reports.get(rel);
  if (!r) {
    const cases: JunitCase[] = [];
    r = { ...(await readJunitFile(join(CORPUS, rel), { onCase: (c) => cases.push(c) })), cases };
    reports.set(rel, r);
  }
  return r;
}

describe('JUnit reader: conformance corpus', () => {
  it('finds the 29 corpus files, each with its expectations', () => {
    expect(files).to.have.length(29);
    for (const f of files) expect(() => expectedOf(f), f).not.to.throw();
  });

  it('two files must be rejected: non-junit.xml as not JUnit (root <suites> on line 2), pytest/corrupt-xml.xml as corrupt at line 11', () => {
    const rejected = files.filter((f) => expectedOf(f).parse_error !== undefined).map((f) => [relative(CORPUS, f), rejection(f, expectedOf(f).parse_error!)]);
    expect(rejected).to.deep.equal([
      ['non-junit.xml', { kind: 'not-junit', line: 2 }],
      ['pytest/corrupt-xml.xml', { kind: 'corrupt', line: 11, column: 22 }],
    ]);
  });

  for (const file of files) {
    const rel = relative(CORPUS, file);
    const expected = expectedOf(file);
    if (expected.parse_error !== undefined) {
      const want = rejection(file, expected.parse_error);
      it(`${rel}: rejected as ${want.kind} at line ${want.line}`, async () => {
        let error: unknown;
        try {
          await readJunitFile(file);
        } catch (e) {
          error = e;
        }
        expect(error).to.be.instanceOf(JunitReadError);
        const err = error as JunitReadError;
        expect(err.file).to.equal(file);
        expect(err.kind).to.equal(want.kind);
        expect(err.line).to.equal(want.line);
        expect(err.message).to.satisfy((m: string) => m.startsWith(`${file}:${want.line}:${want.column ?? ''}`));
      });
      continue;
    }
    it(`${rel}: cases and declared suites`, async () => {
      const r = await report(rel);
      const cases = expected.cases ?? [];
      expect(r.cases.length, 'number of cases').to.equal(cases.length);
      cases.forEach((want, i) => {
        const got = r.cases[i];
        const where = `${rel} case #${i} ${want.test_name ?? ''}`;
        expect(got, where).to.not.equal(undefined);
        if (!got) return;
        expect(got.className, where).to.equal(want.class_name ?? '');
        expect(got.name, where).to.equal(want.test_name ?? '');
        expect(got.outcome, where).to.equal(corpusResult(want.result));
        if (want.time === null) expect(got.time, where).to.equal(null);
        else expect(got.time, where).to.be.a('number').and.closeTo(want.time, 1e-9);
      });
      expect(r.declared).to.deep.equal(expected.suites_declared ?? []);
    });
  }

  describe('where counts derived from cases differ from what suites declare', () => {
    type Counts = Pick<JunitSuiteResult, 'name' | 'total' | 'failures' | 'errors' | 'skipped'>;
    const counts = (s: JunitSuiteResult): Counts => ({
      name: s.name,
      total: s.total,
      failures: s.failures,
      errors: s.errors,
      skipped: s.skipped,
    });

    it('lists exactly the documented differences across the corpus', async () => {
      const differing: string[] = [];
      for (const file of files) {
        const rel = relative(CORPUS, file);
        if (expectedOf(file).parse_error !== undefined) continue;
        const r = await report(rel);
        for (const s of r.suites) {
          const d = r.declared.find((x) => (x.name ?? r.file.split('/').pop()) === s.name);
          const same = d && d.tests === s.total && d.failures === s.failures && d.errors === s.errors && d.skipped === s.skipped;
          if (!same) differing.push(`${rel}#${s.name}`);
        }
      }
      expect(differing.sort()).to.deep.equal([
        'junit.multiresult.xml#test suite',
        'testsuite-in-testsuite.xml#Project Test Suite',
        'testsuite-in-testsuite.xml#TestSuite2',
        'testsuite-root.xml#Project Test Suite',
        'testsuite-root.xml#TestSuite2',
        'tst/disabled.xml#factorial',
      ]);
    });

    it('several result elements: `suites` counts each case once by its most severe outcome; `declared` (no count attributes) counts each kind of result element a case holds', async () => {
      const r = await report('junit.multiresult.xml');
      expect(r.declared).to.deep.equal([{ name: 'test suite', tests: 4, skipped: 3, failures: 2, errors: 1 }]);
      expect(r.suites.map(counts)).to.deep.equal([{ name: 'test suite', total: 4, failures: 1, errors: 1, skipped: 1 }]);
    });

    it('status="disabled" cases count as skipped in `suites`, while `declared` keeps the skipped="0" attribute', async () => {
      const r = await report('tst/disabled.xml');
      expect(r.declared[0]).to.deep.equal({ name: 'factorial', tests: 17, skipped: 0, failures: 5, errors: 1 });
      expect(r.suites.map(counts)).to.deep.equal([
        { name: 'factorial', total: 17, failures: 5, errors: 1, skipped: 5 },
        { name: 'failing_checks', total: 14, failures: 14, errors: 0, skipped: 0 },
      ]);
    });

    for (const rel of ['testsuite-in-testsuite.xml', 'testsuite-root.xml']) {
      it(`${rel}: a suite entry counts only the cases directly inside; its duration is then their sum, not the time attribute`, async () => {
        const r = await report(rel);
        expect(r.suites.map(counts)).to.deep.equal([
          { name: 'TestSuite1', total: 2, failures: 0, errors: 0, skipped: 0 },
          { name: 'TestSuite2.1', total: 1, failures: 0, errors: 0, skipped: 0 },
          { name: 'TestSuite2', total: 1, failures: 0, errors: 0, skipped: 0 },
          { name: 'Project Test Suite', total: 1, failures: 0, errors: 0, skipped: 0 },
        ]);
        const durations = r.suites.map((s) => s.duration);
        [2.642909, 1.08817, 0.98817, 0.08817].forEach((d, i) => expect(durations[i]).to.be.closeTo(d, 1e-9));
        expect(r.declared.find((d) => d.name === 'Project Test Suite')?.tests).to.equal(5);
      });
    }

    it('a suite without cases but with declared counts yields an entry with those counts', async () => {
      const r = await report('no-cases-but-tests.xml');
      expect(r.cases).to.deep.equal([]);
      expect(r.suites).to.have.length(1);
      expect(r.suites[0]).to.deep.include({ name: 'pytest', total: 6, failures: 1, errors: 0, skipped: 2, flaky: 0 });
      expect(r.suites[0]?.duration).to.be.closeTo(0.01, 1e-9);
      expect(r.suites[0]?.timestamp).to.be.closeTo(Date.UTC(2020, 8, 1, 7, 11, 23) / 1000 + 0.815873, 1e-6);
    });

    it('a suite declaring 0 tests and holding none yields no entry', async () => {
      expect((await report('no-cases.xml')).suites).to.deep.equal([]);
    });

    it('test cases without name and class name are counted but not listed', async () => {
      const r = await report('no-attributes.xml');
      expect(r.cases).to.deep.equal([]);
      expect(r.suites.map(counts)).to.deep.equal([{ name: 'no-attributes.xml', total: 4, failures: 1, errors: 1, skipped: 1 }]);
    });
  });
});
