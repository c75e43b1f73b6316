import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { RerunMerger } from '@trailproof/action';
import { readJunitString, summarize, type JunitSuiteResult } from '@trailproof/junit';

const fixture = (path: string) => readFileSync(new URL(`./${path}`, import.meta.url), 'utf8');

/** Reads `xml` with every case given to a merger, and merges. */
async function merged(xml: string) {
  const merger = new RerunMerger();
  const report = await readJunitString(xml, 'report.xml', { onCase: merger.add });
  const result = merger.merge(report.suites, 100);
  return { separate: summarize([report]), merged: summarize([{ ...report, suites: result.suites }]), result };
}
const counts = ({ total, passed, failed, errors, skipped, flaky }: ReturnType<typeof summarize>) => ({ total, passed, failed, errors, skipped, flaky });

describe('reruns: merge', () => {
  it('gotestsum --rerun-fails (real output): 6 runs are 3 tests, the one that failed then passed is flaky, not failed', async () => {
    const { separate, merged: m, result } = await merged(fixture('fixtures/reruns/gotestsum-rerun.xml'));
    expect(counts(separate)).to.deep.equal({ total: 6, passed: 2, failed: 4, errors: 0, skipped: 0, flaky: 0 });
    expect(counts(m)).to.deep.equal({ total: 3, passed: 2, failed: 1, errors: 0, skipped: 0, flaky: 1 });
    expect(result.failures.map((c) => c.name)).to.deep.equal(['TestAlwaysFails']);
    expect(result).to.include({ repeatedCases: 2, repeats: 3 });
  });

  it('pytest-rerunfailures and Jest retryTimes (real output) write each test once: merging changes nothing', async () => {
    for (const file of ['pytest-rerun.xml', 'jest-rerun.xml']) {
      const { separate, merged: m, result } = await merged(fixture(`fixtures/reruns/${file}`));
      expect(counts(m), file).to.deep.equal(counts(separate));
      expect(counts(m), file).to.include({ total: 3, failed: 1 });
      expect(result.repeats, file).to.equal(0);
    }
  });

  it('Surefire reruns (flakyFailure) stay flaky; repeated cases (as Gradle test-retry writes) count by their last run, per suite', async () => {
    const surefire = await merged(fixture('../../junit/src/fixtures/surefire-rerun.xml'));
    expect(counts(surefire.merged)).to.deep.equal(counts(surefire.separate));
    const xml = `<testsuites>
      <testsuite name="A" time="1"><testcase classname="A" name="t"><failure message="1st"/></testcase><testcase classname="A" name="u"/></testsuite>
      <testsuite name="B" time="2"><testcase classname="A" name="t"/></testsuite>
      <testsuite name="A" time="3"><testcase classname="A" name="t"><error message="2nd"/></testcase><testcase classname="A" name="u"><skipped/></testcase></testsuite>
      <testsuite name="Declared" tests="4" failures="1"/>
    </testsuites>`;
    const { result } = await merged(xml);
    expect(result.suites.map((s: JunitSuiteResult) => [s.name, s.total, s.failures, s.errors, s.skipped, s.flaky, s.duration])).to.deep.equal([
      ['A', 2, 0, 1, 1, 0, 4],
      ['B', 1, 0, 0, 0, 0, 2],
      ['Declared', 4, 1, 0, 0, 0, 0],
    ]);
    expect(result.failures.map((c) => c.message)).to.deep.equal(['2nd']);
  });
});
