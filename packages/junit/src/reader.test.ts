/**
 * Dialect rules of the JUnit reader (packages/junit/README.md, "Rules") on what the report keeps, its totals and the
 * memory a read takes, one small document per rule.
 */
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as reader from './index.ts';
import { summarize, type JunitCase, type JunitFileReport } from './index.ts';
import { fixture, readJunitFile, readJunitStream, readJunitString, suite } from './reader-test-support.ts';

describe('JUnit reader: dialect rules', () => {
  describe('what the report keeps', () => {
    const many = suite(
      Array.from({ length: 250 }, (_, i) =>
        i % 2
          ? `<testcase classname="c" name="t${i}"/>`
          : `<testcase classname="c" name="t${i}"><${i % 4 ? 'error' : 'failure'} message="m${i}">trace ${i}</${i % 4 ? 'error' : 'failure'}></testcase>`,
      ).join(''),
    );

    it('by default: the suites and the first 100 failed or errored cases; the rest only counted', async () => {
      const r = await reader.readJunitString(many);
      expect(r).to.not.have.property('cases');
      expect(r.suites[0]).to.include({ total: 250, failures: 63, errors: 62 });
      expect(r.failures.map((c) => c.name)).to.deep.equal(Array.from({ length: 100 }, (_, i) => `t${2 * i}`));
      expect(r.failures[1]).to.include({ outcome: 'error', message: 'm2', details: 'trace 2' });
      expect(r.moreFailures).to.equal(25);
    });

    it('maxFailures sets how many are kept; onCase is given every listed case in document order', async () => {
      const seen: string[] = [];
      const r = await reader.readJunitString(many, 'f', { maxFailures: 3, onCase: (c) => seen.push(`${c.name}:${c.outcome}`) });
      expect(r.failures.map((c) => c.name)).to.deep.equal(['t0', 't2', 't4']);
      expect(r.moreFailures).to.equal(122);
      expect(seen).to.have.length(250);
      expect(seen.slice(0, 3)).to.deep.equal(['t0:failure', 't1:success', 't2:error']);
      // With onCase, every case has its message and details, kept or not.
      const last: JunitCase[] = [];
      await reader.readJunitString(many, 'f', { maxFailures: 0, onCase: (c) => last.push(c) });
      expect(last[248]).to.include({ name: 't248', outcome: 'failure', message: 'm248', details: 'trace 248' });
    });

    it('an error thrown by onCase ends the read and comes out as it is', async () => {
      const boom = new Error('stop here');
      let error: unknown;
      await reader
        .readJunitString(many, 'f', {
          onCase: () => {
            throw boom;
          },
        })
        .catch((e: unknown) => (error = e));
      expect(error).to.equal(boom);
    });

    it('refuses a bad maxFailures', async () => {
      const error = await reader.readJunitString('<testsuite/>', 'f', { maxFailures: 1.5 }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(RangeError).and.have.property('message', 'maxFailures must be a non-negative integer, got 1.5');
    });
  });

  describe('summarize', () => {
    it('totals the suites of several files', async () => {
      const a = await readJunitFile(fixture('surefire-rerun.xml'));
      const b = await readJunitString('<testsuite name="b" tests="5" failures="1" skipped="1" time="2"/>');
      const t = summarize([a, b]);
      expect(t).to.include({ suites: 2, total: 9, passed: 5, failed: 2, errors: 1, skipped: 1, flaky: 1 });
      expect(t.duration).to.be.closeTo(2.35, 1e-9);
      expect(summarize([])).to.deep.equal({ suites: 0, total: 0, passed: 0, failed: 0, errors: 0, skipped: 0, flaky: 0, duration: 0 });
    });
  });

  describe('memory', () => {
    /** A forced garbage collection (exposed at run time) so the baseline is not inflated. */
    function collect(): void {
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as (() => void) | undefined;
      gc?.();
    }

    it('streams a generated ~50MB report with RSS growth under 100MB', async function () {
      this.timeout(300_000);
      collect();
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      let produced = 0;
      const line = `${'0123456789abcdef'.repeat(63)}<\n`.replace('<', '&lt;');
      const block = Buffer.from(line.repeat(64));
      const casesXml = Buffer.from(
        Array.from(
          { length: 100 },
          (_, i) =>
            `<testcase classname="com.example.Class${i % 7}" name="test number ${i} with a fairly long name" time="0.0${i}">` +
            `<failure message="assertion ${i} failed" type="AssertionError">${'at com.example.Some.method(Some.java:42)\n'.repeat(10)}</failure>` +
            '<system-out>some output of the test\n</system-out></testcase>',
        ).join(''),
      );

      async function* generate(): AsyncGenerator<Buffer> {
        const emit = (b: Buffer): Buffer => {
          produced += b.length;
          if (produced % (1 << 20) < b.length) peak = Math.max(peak, process.memoryUsage().rss);
          return b;
        };
        yield emit(Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n<testsuite name="big" timestamp="2024-01-01T00:00:00Z">\n'));
        // ~15MB of CDATA system-out, one section.
        yield emit(Buffer.from('<testcase classname="c" name="logs"/><system-out><![CDATA['));
        for (let i = 0; i < 230; i++) yield emit(block);
        yield emit(Buffer.from(']]></system-out>\n'));
        // A failure whose body is one ~10MB text node.
        yield emit(Buffer.from('<testcase classname="c" name="huge-failure"><failure message="huge">'));
        for (let i = 0; i < 150; i++) yield emit(block);
        yield emit(Buffer.from('</failure></testcase>\n<system-err>'));
        // ~10MB of text in system-err.
        for (let i = 0; i < 150; i++) yield emit(block);
        yield emit(Buffer.from('</system-err>\n'));
        // ~15MB of test cases.
        while (produced < 50 * 1024 * 1024) yield emit(casesXml);
        yield emit(Buffer.from('</testsuite>\n</testsuites>\n'));
      }

      const report = await readJunitStream(generate(), 'big.xml');
      peak = Math.max(peak, process.memoryUsage().rss);
      expect(produced).to.be.greaterThan(50 * 1024 * 1024);
      const growthMB = (peak - baseline) / (1 << 20);
      expect(growthMB, `RSS grew by ${growthMB.toFixed(1)}MB`).to.be.lessThan(100);
      expect(report.cases[1]).to.include({ name: 'huge-failure', outcome: 'failure', message: 'huge' });
      expect(report.cases[1]?.details).to.have.length(4096);
      expect(report.cases.length).to.be.greaterThan(10_000);
      expect(report.suites[0]?.total).to.equal(report.cases.length);
    });

    it('by default keeps memory flat however many test cases: 250,000 and 1,000,000 cases, 6% failing with stack traces', function () {
      this.timeout(300_000);
      // Each run in a fresh process, so that only the reader's memory is measured (test/memory-probe.ts).
      // The young generation pinned at Node 20's default (16MB a semi-space): Node 24's V8 grows it
      // further, which added about 30MB of garbage to the RSS at 1,000,000 cases.
      const probe = fileURLToPath(new URL('../test/memory-probe.ts', import.meta.url));
      const measure = (blocks: number) => {
        const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', '--max-semi-space-size=16', probe, 'plain', String(blocks)], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        });
        expect(run.status, run.stderr).to.equal(0);
        const result = JSON.parse(run.stdout) as {
          baseline: number;
          peak: number;
          produced: number;
          suites: JunitFileReport['suites'];
          failures: number;
          firstFailure: JunitCase;
          moreFailures: number;
        };
        expect(result.produced).to.be.greaterThan(blocks * 18_000);
        expect(result.suites).to.have.length(1);
        expect(result.suites[0]).to.include({ total: blocks * 100, failures: blocks * 5, errors: blocks });
        expect(result.failures).to.equal(100);
        expect(result.firstFailure).to.include({ name: 'shouldHandleRequest0', message: 'expected 200 (case 0)' });
        expect(result.moreFailures).to.equal(blocks * 6 - 100);
        return (result.peak - result.baseline) / (1 << 20);
      };
      const quarter = measure(2_500);
      const million = measure(10_000);
      // Keeping every case costs about 100MB per 250,000 of them here (test/memory-probe.ts collect);
      // the default report's growth is the garbage collector's slack, and does not grow with them.
      expect(quarter, `RSS grew by ${quarter.toFixed(1)}MB at 250,000 cases`).to.be.lessThan(64);
      expect(million, `RSS grew by ${million.toFixed(1)}MB at 1,000,000 cases`).to.be.lessThan(64);
      expect(million - quarter, 'growth from 250,000 to 1,000,000 cases').to.be.lessThan(32);
    });
  });
});
