/**
 * Dialect rules of the JUnit reader (packages/junit/README.md, "Rules") on a test case: its outcome, file and line,
 * message and details, one small document per rule.
 */
import { expect } from 'chai';
import { chunks, fixture, readJunitFile, readJunitStream, readJunitString, suite } from './reader-test-support.ts';

describe('JUnit reader: dialect rules', () => {
  describe('outcomes', () => {
    it('the most severe child decides: error > failure > skipped > success, in any order', async () => {
      const r = await readJunitString(
        suite(`
        <testcase classname="c" name="e1"><skipped/><error message="E"/><failure message="F"/></testcase>
        <testcase classname="c" name="f1"><failure message="F1"/><skipped message="S"/><failure message="F2"/></testcase>
        <testcase classname="c" name="s1"><skipped message="S"/><system-out>out</system-out></testcase>
        <testcase classname="c" name="ok"><system-err>err</system-err></testcase>`),
      );
      expect(r.cases.map((c) => [c.name, c.outcome, c.message])).to.deep.equal([
        ['e1', 'error', 'E'],
        ['f1', 'failure', 'F1'],
        ['s1', 'skipped', 'S'],
        ['ok', 'success', undefined],
      ]);
    });

    it("the deciding element's type is kept beside its message, on the plain path and through saxes alike", async () => {
      const cases = `
        <testcase classname="c" name="typed"><error type="TimeoutError"/></testcase>
        <testcase classname="c" name="both"><failure message="F" type="AssertionError"/><error type="IOError" message="E"/></testcase>
        <testcase classname="c" name="undecided"><skipped/><flakyFailure type="Flake"/></testcase>`;
      // A processing instruction sends the document to saxes.
      for (const xml of [suite(cases), `<?pi x?>${suite(cases)}`]) {
        const r = await readJunitString(xml);
        expect(r.cases.map((c) => [c.name, c.outcome, c.message, c.type])).to.deep.equal([
          ['typed', 'error', undefined, 'TimeoutError'],
          ['both', 'error', 'E', 'IOError'],
          ['undecided', 'skipped', undefined, undefined],
        ]);
      }
    });

    it('status disabled / skipped / notrun / ignored (and similar) count as skipped; other statuses do not decide', async () => {
      const statuses = ['disabled', 'skipped', 'SKIP', 'notrun', 'not run', 'not_run', 'ignored', 'pending', 'passed', 'run', 'failed'];
      const r = await readJunitString(suite(statuses.map((s) => `<testcase classname="c" name="${s}" status="${s}"/>`).join('')));
      expect(r.cases.map((c) => c.outcome)).to.deep.equal([...Array(8).fill('skipped'), 'success', 'success', 'success']);
      const withFailure = await readJunitString(suite('<testcase classname="c" name="t" status="disabled"><failure/></testcase>'));
      expect(withFailure.cases[0]?.outcome).to.equal('failure');
    });

    it('Surefire reruns: flakyFailure/flakyError pass (flaky), rerunFailure/rerunError fail', async () => {
      const r = await readJunitFile(fixture('surefire-rerun.xml'));
      expect(r.cases.map((c) => [c.name, c.outcome, c.flaky, c.message])).to.deep.equal([
        ['passesOnRerun', 'success', true, 'expected: <1> but was: <2>'],
        ['failsEveryTime', 'failure', false, 'boom'],
        ['errorsOnRerun', 'error', false, 'npe'],
        ['passes', 'success', false, undefined],
      ]);
      expect(r.cases[0]?.details).to.equal(
        'org.opentest4j.AssertionFailedError: expected: <1> but was: <2>\n\tat com.example.FlakyTest.passesOnRerun(FlakyTest.java:12)',
      );
      expect(r.cases[1]?.details).to.equal('java.lang.AssertionError: boom\n\tat com.example.FlakyTest.failsEveryTime(FlakyTest.java:20)');
      expect(r.suites[0]).to.include({ total: 4, failures: 1, errors: 1, skipped: 0, flaky: 1, duration: 0.35 });
      expect(r.suites[0]?.timestamp).to.be.closeTo(Date.UTC(2024, 2, 1, 9, 15, 30, 250) / 1000, 1e-9);
      const flakyError = await readJunitString(suite('<testcase classname="c" name="t"><flakyError message="x"/></testcase>'));
      expect(flakyError.cases[0]).to.include({ outcome: 'success', flaky: true, message: 'x' });
    });
  });

  it("keeps a case's file and line attributes (pytest, Jest, PHPUnit, Go write them); a line that is not a positive integer is dropped", async () => {
    const r = await readJunitString(
      suite(
        '<testcase classname="tests.test_vat" name="test_rate" file="tests/test_vat.py" line="42"><failure message="boom"/></testcase>' +
          '<testcase classname="c" name="u" file="" line="0"/><testcase classname="c" name="v" line="12a"/>',
      ),
    );
    expect(r.cases.map((c) => [c.file, c.line])).to.deep.equal([
      ['tests/test_vat.py', 42],
      [undefined, undefined],
      [undefined, undefined],
    ]);
    expect(r.failures[0]).to.include({ file: 'tests/test_vat.py', line: 42, message: 'boom' });
  });

  describe('message and details', () => {
    it('keeps the deciding element message and text, without system-out/system-err', async () => {
      const r = await readJunitString(
        suite(`<testcase classname="c" name="t">
          <skipped message="not this">nor this</skipped>
          <failure message="bad" type="AssertionError">
            line 1
            <![CDATA[line <2>]]> &amp; more
            <system-out>never</system-out>
          </failure>
          <system-out>case output</system-out>
        </testcase>`),
      );
      expect(r.cases[0]?.message).to.equal('bad');
      expect(r.cases[0]?.details).to.equal('line 1\n            line <2> & more');
    });

    it('truncates message and details to maxDetailsLength (default 4096) while streaming', async () => {
      const long = 'x'.repeat(10_000);
      const xml = suite(`<testcase classname="c" name="t"><error message="${long}">${long}<![CDATA[${long}]]>${long}</error></testcase>`);
      const def = await readJunitString(xml);
      expect(def.cases[0]?.message).to.have.length(4096);
      expect(def.cases[0]?.details).to.have.length(4096);
      const small = await readJunitStream(chunks(Buffer.from(xml), 1000), 'x.xml', { maxDetailsLength: 100 });
      expect(small.cases[0]?.message).to.equal('x'.repeat(100));
      expect(small.cases[0]?.details).to.equal('x'.repeat(100));
    });

    it('does not cut a surrogate pair in half', async () => {
      const r = await readJunitString(suite('<testcase classname="c" name="t"><failure message="ab😀">ab😀c</failure></testcase>'), 'f', {
        maxDetailsLength: 3,
      });
      expect(r.cases[0]).to.include({ message: 'ab', details: 'ab' });
    });

    it('refuses a bad maxDetailsLength', async () => {
      let error: unknown;
      try {
        await readJunitString('<testsuite/>', 'f', { maxDetailsLength: -1 });
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(RangeError);
    });
  });
});
