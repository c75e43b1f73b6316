/**
 * Dialect rules of the JUnit reader (packages/junit/README.md, "Rules") on root elements and suites: nesting, names,
 * declared counts, durations, one small document per rule.
 */
import { expect } from 'chai';
import { fixture, readJunitFile, readJunitStream, readJunitString, rejection, suite } from './reader-test-support.ts';

describe('JUnit reader: dialect rules', () => {
  describe('roots and suites', () => {
    it('accepts a <testsuite> root and a <testsuites> root', async () => {
      expect((await readJunitString('<testsuite name="a"><testcase classname="c" name="t"/></testsuite>')).suites[0]?.name).to.equal('a');
      expect((await readJunitString('<testsuites><testsuite name="b"><testcase classname="c" name="t"/></testsuite></testsuites>')).suites[0]?.name).to.equal(
        'b',
      );
    });

    it('rejects any other root as not-junit (a Maven failsafe-summary.xml), naming file and line', async () => {
      const path = fixture('failsafe-summary.xml');
      const err = await rejection(readJunitFile(path));
      expect(err).to.include({ kind: 'not-junit', line: 2, file: path });
      expect(err.message).to.include(path).and.include('failsafe-summary');
    });

    it('stops reading a non-JUnit stream at its root element', async () => {
      let pulled = 0;
      let closed = false;
      async function* endless(): AsyncGenerator<Buffer> {
        try {
          yield Buffer.from('<report><item/>');
          for (;;) {
            pulled++;
            yield Buffer.from('<item/>'.repeat(1000));
          }
        } finally {
          closed = true;
        }
      }
      expect((await rejection(readJunitStream(endless(), 'r.xml'))).kind).to.equal('not-junit');
      expect(pulled).to.be.lessThan(2);
      expect(closed).to.equal(true);
    });

    it('reads suites nested at any depth: one entry per suite holding cases, every suite declared (innermost first)', async () => {
      const xml = `<testsuites><testsuite name="a" tests="4">
          <testsuite name="b"><testsuite name="c"><testsuite name="d">
            <testcase classname="k" name="t1" time="1"><failure/></testcase>
          </testsuite></testsuite><testcase classname="k" name="t2" time="2"/></testsuite>
          <testcase classname="k" name="t3" time="3"><skipped/></testcase>
        </testsuite></testsuites>`;
      const r = await readJunitString(xml);
      expect(r.cases.map((c) => [c.name, c.suiteName])).to.deep.equal([
        ['t1', 'd'],
        ['t2', 'b'],
        ['t3', 'a'],
      ]);
      expect(r.suites.map((s) => [s.name, s.total, s.failures, s.skipped])).to.deep.equal([
        ['d', 1, 1, 0],
        ['b', 1, 0, 0],
        ['a', 1, 0, 1],
      ]);
      // Undeclared counts come from all cases inside, nested suites included.
      expect(r.declared).to.deep.equal([
        { name: 'd', tests: 1, skipped: 0, failures: 1, errors: 0 },
        { name: 'c', tests: 1, skipped: 0, failures: 1, errors: 0 },
        { name: 'b', tests: 2, skipped: 0, failures: 1, errors: 0 },
        { name: 'a', tests: 4, skipped: 1, failures: 1, errors: 0 },
      ]);
    });

    it('falls back to counts from the cases for each count attribute missing or unreadable', async () => {
      const r = await readJunitString(
        suite('<testcase classname="c" name="t"><failure/></testcase><testcase classname="c" name="u"><skipped/></testcase>', ' tests="5" skipped="x"'),
      );
      expect(r.declared).to.deep.equal([{ name: 's', tests: 5, skipped: 1, failures: 1, errors: 0 }]);
    });

    it('gives a suite with declared counts but no cases an entry with those counts; an empty one or a wrapper none', async () => {
      const xml = `<testsuites>
        <testsuite name="declared" tests="6" failures="1" errors="2" skipped="3" time="1.5" timestamp="2024-01-01T00:00:00Z"/>
        <testsuite name="empty" tests="0"/>
        <testsuite name="wrapper" tests="1"><testsuite name="inner"><testcase classname="c" name="t"/></testsuite></testsuite>
      </testsuites>`;
      const r = await readJunitString(xml);
      expect(r.suites).to.deep.equal([
        { name: 'declared', timestamp: 1704067200, total: 6, failures: 1, errors: 2, skipped: 3, duration: 1.5, flaky: 0 },
        { name: 'inner', timestamp: null, total: 1, failures: 0, errors: 0, skipped: 0, duration: 0, flaky: 0 },
      ]);
      expect(r.declared.map((d) => d.name)).to.deep.equal(['declared', 'empty', 'inner', 'wrapper']);
    });

    it('puts cases directly under <testsuites> into a suite named after the file', async () => {
      const xml = `<testsuites timestamp="2024-01-01T00:00:00Z"><testcase classname="c" name="loose" time="2"><error/></testcase>
        <testsuite name="s"><testcase classname="c" name="inside"/></testsuite></testsuites>`;
      const r = await readJunitString(xml, 'build/reports/TEST-all.xml');
      expect(r.cases.map((c) => c.suiteName)).to.deep.equal(['TEST-all.xml', 's']);
      expect(r.suites).to.deep.equal([
        { name: 's', timestamp: 1704067200, total: 1, failures: 0, errors: 0, skipped: 0, duration: 0, flaky: 0 },
        { name: 'TEST-all.xml', timestamp: 1704067200, total: 1, failures: 0, errors: 1, skipped: 0, duration: 2, flaky: 0 },
      ]);
      expect(r.declared).to.deep.equal([{ name: 's', tests: 1, skipped: 0, failures: 0, errors: 0 }]);
    });

    it('names a suite without a name after the file; its declared name is null', async () => {
      const r = await readJunitString('<testsuite><testcase classname="c" name="t"/></testsuite>', '/tmp/x/results.xml');
      expect(r.suites[0]?.name).to.equal('results.xml');
      expect(r.cases[0]?.suiteName).to.equal('results.xml');
      expect(r.declared[0]?.name).to.equal(null);
    });

    it('duration: the suite time attribute, else the sum of its case times', async () => {
      const r = await readJunitString(`<testsuites>${suite('<testcase classname="c" name="a" time="1"/>', ' time="9.5"')}
        <testsuite name="t"><testcase classname="c" name="a" time="1.25"/><testcase classname="c" name="b"/><testcase classname="c" name="c" time="2"/></testsuite></testsuites>`);
      expect(r.suites.map((s) => s.duration)).to.deep.equal([9.5, 3.25]);
    });

    it('counts cases without name and class name in the suite but does not list them', async () => {
      const r = await readJunitString(suite('<testcase><failure/></testcase><testcase classname="c" name="t"/>'));
      expect(r.cases.map((c) => c.name)).to.deep.equal(['t']);
      expect(r.suites[0]).to.include({ total: 2, failures: 1 });
    });

    it('ignores namespace prefixes and elements it does not know', async () => {
      const r = await readJunitString(
        '<j:testsuite xmlns:j="urn:x"><properties><property name="a" value="b"/></properties><j:testcase classname="c" name="t"><j:failure message="m"/></j:testcase><foo><bar/></foo></j:testsuite>',
      );
      expect(r.cases[0]).to.include({ name: 't', outcome: 'failure', message: 'm' });
    });
  });
});
