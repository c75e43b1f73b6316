// @database
/** What the action reports on the runner from real reports: failed tests annotated, reruns merged or counted separately, the job summary kept under 1 MiB. */
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { call, type ServerProcess } from './support/processes.ts';
import { actionFixture, commands, failingXml, fixtures, passingXml } from './support/action-run.ts';

const reruns = (name: string) => readFileSync(join(fixtures, 'reruns', name), 'utf8');

describe('the GitHub Action, run as the runner runs it', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let token = '';
  const { runAction } = actionFixture((started) => ({ server, token } = started));

  it("push: failed tests annotated from real Jest and pytest reports (file attribute, stack frame), within the step's 10", async () => {
    const files: Record<string, string> = { 'src/vat.test.js': '// test\n', 'tests/test_vat.py': '# test\n', 'reports/pytest.xml': reruns('pytest-rerun.xml') };
    // jest-junit wrote absolute paths of the directory it ran in: here, the workspace.
    const run = await runAction(
      'push',
      files,
      { trail: 'annotated', 'fail-on-failure': 'false', 'junit-paths': 'reports' },
      {
        prepare: (workspace) => writeFileSync(join(workspace, 'reports/jest.xml'), reruns('jest-rerun.xml').replaceAll('/tmp/jestrun/', `${workspace}/`)),
      },
    );
    expect(run.status, run.stdout).to.equal(0);
    expect(commands(run.stdout, 'error')).to.deep.equal([
      '::error title=vat › vat always fails,file=src/vat.test.js,line=16::Error: expect(received).toBe(expected) // Object.is equality%0A%0AExpected: 0%0AReceived: 19' +
        `%0A    at Object.toBe (${run.workspace}/src/vat.test.js:16:16)%0A    at Promise.finally.completed (${run.workspace}/node_modules/jest-circus/build/jestAdapterInit.js:1834:28)` +
        `%0A    at new Promise (<anonymous>)%0A    at callAsyncCircusFn (${run.workspace}/node_modules/jest-circus/build/jestAdapterInit.js:1774:10)` +
        `%0A    at _callCircusTest (${run.workspace}/node_modules/jest-circus/build/jestAdapterInit.js:1167:40)%0A    at _runTestInContext (${run.workspace}/node_modules/jest-circus/build/jestAdapterInit.js:1103:3)` +
        `%0A    at rerunTest (${run.workspace}/node_modules/jest-circus/build/jestAdapterInit.js:977:7)%0A    at _runTestsForDescribeBlockOnce (${run.workspace}/node_modules/jest-circus/build/jestAdapterInit.js:1033:5)`,
      '::error title=pytest › tests.test_vat › test_always_fails,file=tests/test_vat.py,line=13::AssertionError: reverse charge%0Aassert 19.0 == 0.0%0Adef test_always_fails():' +
        '%0A>       assert 19.00 == 0.00, "reverse charge"%0AE       AssertionError: reverse charge%0AE       assert 19.0 == 0.0%0A%0Atests/test_vat.py:13: AssertionError',
    ]);
    expect(run.outputs).to.include({ total: '6', failed: '2', compliant: 'false' });

    // Twelve failures and a failing step: nine annotations (the step's own failure is the tenth), the rest named in the summary.
    const many = `<testsuite name="many">${Array.from({ length: 12 }, (_, i) => `<testcase classname="many" name="t${i}" file="src/vat.test.js" line="${i + 1}"><failure message="m${i}"/></testcase>`).join('')}</testsuite>`;
    const capped = await runAction('push', { 'TEST-many.xml': many, 'src/vat.test.js': '' }, { trail: 'annotated-many' });
    expect(capped.status).to.equal(1);
    expect(commands(capped.stdout, 'error').map((l) => l.replace(/::m\d+$/, ''))).to.deep.equal(
      [
        ...Array.from({ length: 9 }, (_, i) => `::error title=many › t${i},file=src/vat.test.js,line=${i + 1}`),
        '::error::12 test(s) failed and 0 errored (of 12); evidence recorded at ' + `${server.url}/ui/acme/flows/backend/trails/annotated-many`,
      ].sort((a, b) => (a.startsWith('::error::') ? -1 : b.startsWith('::error::') ? 1 : 0)),
    );
    expect(capped.summary).to.contain(
      "Annotated the first 9; not annotated (GitHub shows at most 10 error annotations per step, the step's own failure message included): **many › t9**, **many › t10**, **many › t11**.",
    );
    const off = await runAction('push', { 'TEST-many.xml': many }, { trail: 'annotated-off', annotations: '0' });
    expect(commands(off.stdout, 'error')).to.have.length(1);
    expect(off.summary).to.contain('Not annotated: annotations is 0.');
  });

  it('reruns: merge counts a test rerun by gotestsum once, by its last run (real output); separate counts every run', async () => {
    const files = { 'go.mod': 'module example.com/invoice\n\ngo 1.19\n', 'vat_test.go': 'package invoice\n', 'junit.xml': reruns('gotestsum-rerun.xml') };
    const separate = await runAction('push', files, { trail: 'reruns-separate' });
    expect(separate.outputs).to.include({ total: '6', passed: '2', failed: '4', flaky: '0' });
    const merged = await runAction('push', files, { trail: 'reruns-merged', reruns: 'merge' });
    expect(merged.status).to.equal(1);
    expect(merged.outputs).to.include({ total: '3', passed: '2', failed: '1', flaky: '1', compliant: 'false' });
    expect(commands(merged.stdout, 'error')).to.include(
      '::error title=example.com/invoice › TestAlwaysFails,file=vat_test.go,line=18::Failed%0A=== RUN   TestAlwaysFails%0A    vat_test.go:18: reverse charge: expected 0.00, got 19.00%0A--- FAIL: TestAlwaysFails (0.00s)',
    );
    expect(merged.summary).to.contain('Reruns merged: 2 test(s) ran more than once (3 reruns)').and.contain('| example.com/invoice | 3 | 2 | 1 | 0 | 0 |');
    const trail = await call(server.url, token, 'GET', '/api/v2/trails/acme/backend/reruns-merged');
    expect(trail.body.attestations[0].junit_results[0]).to.include({ name: 'example.com/invoice', total: 3, failures: 1 });
    // Only the flaky test's reruns: merged, the step passes.
    const flakyOnly = reruns('gotestsum-rerun.xml').replace(/<testcase classname="example.com\/invoice" name="TestAlwaysFails"[\s\S]*?<\/testcase>\s*/g, '');
    const passes = await runAction('push', { ...files, 'junit.xml': flakyOnly }, { trail: 'reruns-flaky', reruns: 'merge' });
    expect(passes.status, passes.stdout).to.equal(0);
    expect(passes.outputs).to.include({ total: '2', failed: '0', flaky: '1', compliant: 'true' });
  });

  it('job-summary: off writes none, failures only when something failed; 100,000 cases with 2 KB names keep the summary under 1 MiB', async () => {
    const passing = { 'TEST-rounding.xml': passingXml };
    expect((await runAction('push', passing, { trail: 'summary-off', 'job-summary': 'off' })).summary).to.equal('');
    expect((await runAction('push', passing, { trail: 'summary-failures', 'job-summary': 'failures' })).summary).to.equal('');
    const failing = await runAction('push', { ...passing, 'TEST-vat.xml': failingXml }, { trail: 'summary-failures-2', 'job-summary': 'failures' });
    expect(failing.summary).to.contain('### Suites with failures').and.contain('| vat.ReverseChargeTest |').and.not.contain('RoundingTest');

    // 100,000 cases in 1,000 suites, every name 2 KB long, every tenth case failing with a 2 KB message: 220 MB.
    const name = (kind: string, i: number) => `${kind}-${i}-${'x'.repeat(2048)}`;
    const writeHuge = (workspace: string) => {
      const report = join(workspace, 'reports/huge.xml');
      writeFileSync(report, '<testsuites>');
      for (let s = 0; s < 1000; s++) {
        let suite = `<testsuite name="${name('suite', s)}">`;
        for (let c = 0; c < 100; c++)
          suite += `<testcase classname="c" name="${name('case', c)}">${c % 10 === 0 ? `<failure message="${name('message', c)}"/>` : ''}</testcase>`;
        appendFileSync(report, `${suite}</testsuite>`);
      }
      appendFileSync(report, '</testsuites>');
      expect(statSync(report).size).to.be.above(200_000_000);
    };
    const huge = await runAction('push', { 'reports/.keep': '' }, { trail: 'summary-huge', 'junit-paths': 'reports/*.xml' }, { prepare: writeHuge });
    expect(huge.status).to.equal(1);
    expect(huge.outputs).to.include({ total: '100000', failed: '10000' });
    expect(Buffer.byteLength(huge.summary)).to.be.below(1024 * 1024);
    expect(huge.summary)
      .to.contain(`| suite-0-${'x'.repeat(191)}… |`)
      .and.contain('… and 950 more suites, not listed')
      .and.contain('… and 9900 more failed or errored tests, not listed');
    expect(huge.summary).to.match(/_\d+ name\(s\) or message\(s\) longer than shown were shortened \(…\)\._/);
  });
});
