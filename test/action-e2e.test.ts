/**
 * The committed action bundle, run exactly as the GitHub runner runs it (`node dist/index.js`
 * with INPUT_* and GITHUB_* variables, an event payload file, summary and output files),
 * against a real server process; then the trail is read back through the API and checked.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { list as listTar } from 'tar';
import { testBackend } from '@trailproof/server/testing';
import { ApiRequestError, createClient } from '@trailproof/action';
import { call, createDatabase, runCli, runProcess, startServerProcess, type ServerProcess } from './support/processes.ts';

const bundle = fileURLToPath(new URL('../packages/action/dist/index.js', import.meta.url));
const cliBundle = fileURLToPath(new URL('../packages/action/dist/cli.js', import.meta.url));
const fixtures = fileURLToPath(new URL('../packages/action/src/fixtures/', import.meta.url));
const reruns = (name: string) => readFileSync(join(fixtures, 'reruns', name), 'utf8');
/** The workflow commands of one kind in a step's output. */
const commands = (stdout: string, kind: string) => stdout.split('\n').filter((line) => line.startsWith(`::${kind} `) || line.startsWith(`::${kind}::`));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const passingXml = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="invoice.RoundingTest" tests="3" failures="0" errors="0" skipped="1" time="0.42" timestamp="2026-11-20T13:05:00Z">
    <testcase classname="invoice.RoundingTest" name="half to even" time="0.1"/>
    <testcase classname="invoice.RoundingTest" name="negative amounts" time="0.3"/>
    <testcase classname="invoice.RoundingTest" name="currency without cents" time="0.02"><skipped/></testcase>
  </testsuite>
</testsuites>`;
const moreXml = `<testsuite name="invoice.TaxTest" tests="2" time="1.5">
  <testcase classname="invoice.TaxTest" name="standard rate" time="0.5"/>
  <testcase classname="invoice.TaxTest" name="flaky network" time="1.0"><flakyFailure message="timeout"/></testcase>
</testsuite>`;
const failingXml = `<testsuite name="vat.ReverseChargeTest" tests="2" failures="1">
  <testcase classname="vat.ReverseChargeTest" name="b2b within EU" time="0.2"><failure message="expected 0.00 but was 19.00">AssertionError at vat.ts:42</failure></testcase>
  <testcase classname="vat.ReverseChargeTest" name="b2c" time="0.1"/>
</testsuite>`;

describe('the GitHub Action, run as the runner runs it', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let token = '';
  let cleanup: () => void | Promise<void> = () => {};
  const dirs: string[] = [];

  before(async () => {
    let location: string;
    if (testBackend === 'postgres') {
      const db = await createDatabase(process.env.TRAILPROOF_TEST_DATABASE!, 'action');
      location = db.url;
      cleanup = db.drop;
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'trailproof-action-db-'));
      location = join(dir, 'evidence.db');
      cleanup = () => rmSync(dir, { recursive: true, force: true });
    }
    // --database takes only a postgres:// URL; a SQLite file is --db.
    const database = [testBackend === 'postgres' ? '--database' : '--db', location];
    token = (await runCli(['token', 'create', '--org', 'acme', ...database])).trim();
    server = await startServerProcess(database);
  });
  after(async () => {
    await server?.stop();
    await cleanup();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  /**
   * A workspace with the given files, and the runner's environment for `event`. With `checkout`,
   * the workspace is a depth-1 clone (as actions/checkout makes) of a repository whose head commit
   * is Grace's, and a pull_request payload names that commit as the PR head.
   */
  async function runAction(
    event: 'push' | 'pull_request' | 'workflow_run',
    files: Record<string, string>,
    inputs: Record<string, string> = {},
    options: { checkout?: boolean; prepare?: (workspace: string) => void } = {},
  ) {
    const root = mkdtempSync(join(tmpdir(), 'trailproof-runner-'));
    dirs.push(root);
    const workspace = join(root, 'workspace');
    const head = options.checkout ? checkout(root, workspace) : undefined;
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(workspace, path, '..'), { recursive: true });
      writeFileSync(join(workspace, path), content);
    }
    mkdirSync(workspace, { recursive: true });
    options.prepare?.(workspace);
    const payload = JSON.parse(readFileSync(join(fixtures, `${event}.json`), 'utf8'));
    if (head && event === 'pull_request') payload.pull_request.head.sha = head;
    writeFileSync(join(root, 'event.json'), JSON.stringify(payload));
    writeFileSync(join(root, 'summary.md'), '');
    writeFileSync(join(root, 'output.txt'), '');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: root,
      RUNNER_TEMP: root,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: 'acme/backend',
      GITHUB_REPOSITORY_OWNER: 'acme',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_API_URL: 'https://api.github.com',
      GITHUB_RUN_ID: '4242',
      GITHUB_RUN_NUMBER: '17',
      GITHUB_WORKFLOW: 'CI',
      GITHUB_JOB: 'test',
      GITHUB_ACTOR: 'ada',
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: join(root, 'event.json'),
      GITHUB_WORKSPACE: workspace,
      GITHUB_SHA: event === 'push' ? payload.after : 'abababababababababababababababababababab',
      GITHUB_REF: event === 'pull_request' ? 'refs/pull/87/merge' : 'refs/heads/main',
      GITHUB_STEP_SUMMARY: join(root, 'summary.md'),
      GITHUB_OUTPUT: join(root, 'output.txt'),
      'INPUT_SERVER-URL': server.url,
      'INPUT_API-TOKEN': token,
      INPUT_ORG: 'acme',
      INPUT_FLOW: 'backend',
      'INPUT_ATTESTATION-NAME': 'junit',
      'INPUT_FAIL-ON-FAILURE': 'true',
      'INPUT_REQUIRE-TESTS': 'true',
      'INPUT_UPLOAD-RESULTS': 'true',
      ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    };
    const result = await runProcess(process.execPath, [bundle], { cwd: workspace, env, timeoutMs: 60_000 });
    return {
      ...result,
      payload,
      head,
      workspace,
      summary: readFileSync(join(root, 'summary.md'), 'utf8'),
      outputs: parseOutputs(readFileSync(join(root, 'output.txt'), 'utf8')),
    };
  }

  it('push: attests passing results with both files as a .tar.gz, and the trail reads back with every field', async () => {
    const run = await runAction('push', {
      'build/test-results/TEST-rounding.xml': passingXml,
      'tax/junit-tax.xml': moreXml,
      'build/test-results/failsafe-summary.xml': '<failsafe-summary result="0"/>',
    });
    expect(run.status, run.stdout + run.stderr).to.equal(0);
    // The token reaches the log only in the command that tells the runner to mask it.
    expect(run.stdout.split('\n').filter((line) => line.includes(token))).to.deep.equal([`::add-mask::${token}`]);
    expect(run.stdout).to.match(/::warning::Skipped .*failsafe-summary\.xml: not a JUnit report/);
    const sha: string = run.payload.after;
    expect(run.outputs).to.deep.equal({
      'trail-url': `${server.url}/ui/acme/flows/backend/trails/${sha}`,
      total: '5',
      passed: '4',
      failed: '0',
      errors: '0',
      skipped: '1',
      flaky: '1',
      suites: '2',
      compliant: 'true',
    });
    expect(run.summary)
      .to.contain('✅ all tests passed')
      .and.to.contain('| invoice.RoundingTest | 3 | 2 | 0 | 0 | 1 |')
      .and.to.contain(`(${server.url}/ui/acme/flows/backend/trails/${sha})`);

    const trail = await call(server.url, token, 'GET', `/api/v2/trails/acme/backend/${sha}`);
    expect(trail.status).to.equal(200);
    expect(trail.body.name).to.equal(sha);
    expect(trail.body.git_commit_info).to.deep.include({
      sha1: sha,
      branch: 'main',
      message: 'Fix rounding in invoice totals\n\nRounds half to even, as the auditors asked.',
      author: 'Ada Lovelace <ada@acme.example>',
      author_username: 'ada',
      timestamp: Date.parse('2026-11-20T14:03:11+01:00') / 1000,
      url: `https://github.com/acme/backend/commit/${sha}`,
      // No git history in this workspace: the one pushed commit's parent is the payload's `before`.
      parents: [run.payload.before],
    });
    expect(trail.body.repo_info).to.deep.include({
      name: 'acme/backend',
      url: 'https://github.com/acme/backend',
      id: '734512',
      description: 'Invoicing backend',
    });
    expect(trail.body.origin_url).to.equal('https://github.com/acme/backend/actions/runs/4242');
    expect(trail.body.is_compliant).to.equal(true);
    const [attestation] = trail.body.attestations;
    expect(attestation).to.include({
      attestation_name: 'junit',
      attestation_type: 'junit',
      is_compliant: true,
      origin_url: 'https://github.com/acme/backend/actions/runs/4242',
    });
    expect(attestation.junit_results).to.deep.equal([
      { name: 'invoice.RoundingTest', failures: 0, errors: 0, skipped: 1, total: 3, duration: 0.42, timestamp: Date.parse('2026-11-20T13:05:00Z') / 1000 },
      { name: 'invoice.TaxTest', failures: 0, errors: 0, skipped: 0, total: 2, duration: 1.5, timestamp: null },
    ]);
    expect(attestation.git_commit_info).to.deep.equal(trail.body.git_commit_info);
    expect(attestation.repo_info).to.deep.equal(trail.body.repo_info);
    expect(attestation.artifact_fingerprint ?? null).to.equal(null);
    expect(attestation.attachment.name).to.equal('junit-results.tar.gz');

    const download = await fetch(`${server.url}${attestation.attachment._links.download.href.replace(/^https?:\/\/[^/]+/, '')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect(sha256(bytes)).to.equal(attestation.attachment.sha256);
    const dir = mkdtempSync(join(tmpdir(), 'trailproof-tar-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'a.tar.gz'), bytes);
    const entries: string[] = [];
    await listTar({ file: join(dir, 'a.tar.gz'), onReadEntry: (e) => entries.push(e.path) });
    expect(entries.sort()).to.deep.equal(['build/test-results/TEST-rounding.xml', 'tax/junit-tax.xml']);
  });

  it('pull_request: attests a failure to the head commit, sets the outputs and fails the step', async () => {
    const fingerprint = sha256(Buffer.from('acme/backend:1.4.2'));
    const run = await runAction(
      'pull_request',
      { 'reports/junit.xml': failingXml },
      { 'attestation-name': 'unit-tests', description: 'PR 87', 'artifact-fingerprint': fingerprint },
      { checkout: true },
    );
    expect(run.status).to.equal(1);
    expect(run.stdout).to.contain('::error::1 test(s) failed and 0 errored (of 2)');
    // The failed test annotated on the diff: the frame in the failure text names vat.ts, which the checkout has.
    expect(commands(run.stdout, 'error')).to.include(
      '::error title=vat.ReverseChargeTest › b2b within EU,file=vat.ts,line=42::expected 0.00 but was 19.00%0AAssertionError at vat.ts:42',
    );
    const head = run.head!;
    expect(run.outputs).to.include({
      total: '2',
      failed: '1',
      passed: '1',
      compliant: 'false',
      'trail-url': `${server.url}/ui/acme/flows/backend/trails/${head}`,
    });
    expect(run.summary).to.contain('❌ 1 failed, 0 errored').and.to.contain('**vat.ReverseChargeTest › b2b within EU** (failure): expected 0.00 but was 19.00');
    const trail = await call(server.url, token, 'GET', `/api/v2/trails/acme/backend/${head}`);
    // Message, author and time from the checkout of the PR head; the PR opener ('grace' in the
    // payload) is not the commit's author, so no author_username; a depth-1 clone knows no parents.
    expect(withoutNulls(trail.body.git_commit_info)).to.deep.equal({
      sha1: head,
      branch: 'feature/vat-reverse-charge',
      url: `https://github.com/acme/backend/commit/${head}`,
      message: 'Add VAT reverse charge\n\nFor B2B invoices.',
      author: 'Grace Hopper <grace@acme.example>',
      timestamp: Date.parse('2026-11-21T16:30:00Z') / 1000,
    });
    expect(withoutNulls(trail.body.repo_info)).to.deep.equal({
      name: 'acme/backend',
      url: 'https://github.com/acme/backend',
      id: '734512',
      description: 'Invoicing backend',
      provider: 'github',
    });
    expect(trail.body.origin_url).to.equal('https://github.com/acme/backend/actions/runs/4242');
    expect(trail.body.description).to.equal('PR 87');
    const [attestation] = trail.body.attestations;
    expect(attestation).to.include({
      attestation_name: 'unit-tests',
      is_compliant: false,
      artifact_fingerprint: fingerprint,
      origin_url: 'https://github.com/acme/backend/actions/runs/4242',
    });
    expect(attestation.git_commit_info).to.deep.equal(trail.body.git_commit_info);
    expect(attestation.repo_info).to.deep.equal(trail.body.repo_info);
    expect(attestation.attachment.name).to.equal('junit.xml');
    expect(attestation.attachment.sha256).to.equal(sha256(Buffer.from(failingXml)));
    expect(trail.body.is_compliant).to.equal(false);
  });

  it('an HTTP error fails the step, and the job summary still shows the error and the totals read', async () => {
    const run = await runAction('push', { 'TEST-rounding.xml': passingXml }, { 'api-token': 'tp_not_a_token', trail: 'denied' });
    expect(run.status).to.equal(1);
    expect(run.stdout).to.match(/::error::PUT \/trails\/acme\/backend answered 401/);
    expect(run.summary).to.match(/\*\*Failed:\*\* PUT \/trails\/acme\/backend answered 401/);
    expect(run.summary).to.contain('3 tests in 1 suites').and.contain('| invoice.RoundingTest | 3 | 2 | 0 | 0 | 1 |').and.contain('was not begun');
  });

  it('fails naming the file and line of corrupt XML, and when nothing matched', async () => {
    const corrupt = await runAction('push', { 'TEST-broken.xml': '<testsuite name="x">\n<testcase name="a">\n<failure>' });
    expect(corrupt.status).to.equal(1);
    expect(corrupt.stdout).to.match(/::error::.*TEST-broken\.xml:3/);
    expect(corrupt.summary).to.match(/\*\*Failed:\*\* .*TEST-broken\.xml:3:\d+: corrupt XML/);
    const attribute = await runAction('push', { 'TEST-vat.xml': '<testsuite name="vat">\n  <testcase name="rate < 0.2"/>\n</testsuite>' });
    expect(attribute.stdout).to.match(/::error::.*TEST-vat\.xml:2:25: corrupt XML: '<' not allowed in an attribute value \(write it as &lt;\)/);
    const none = await runAction('push', { 'README.md': 'no tests here' });
    expect(none.status).to.equal(1);
    expect(none.stdout).to.contain('::error::No JUnit files matched');
    expect(none.summary).to.contain('**Failed:** No JUnit files matched');
    const allowed = await runAction('push', { 'README.md': 'no tests here' }, { 'require-tests': 'false', trail: 'begun-without-tests' });
    expect(allowed.status).to.equal(0);
    expect(allowed.stdout).to.contain('::warning::No JUnit files matched');
    expect(allowed.outputs).to.include({ total: '0', compliant: 'true' });
  });

  it('with require-tests false and no tests, still begins the trail (with its template) and attests nothing', async () => {
    const template = 'version: 1\ntrail:\n  attestations:\n    - name: unit\n      type: junit\n';
    const run = await runAction(
      'push',
      { '.trailproof/template.yml': template },
      { 'require-tests': 'false', 'junit-paths': 'none.xml', trail: 'matrix-1', 'template-file': '.trailproof/template.yml' },
    );
    expect(run.status, run.stdout).to.equal(0);
    const trail = await call(server.url, token, 'GET', '/api/v2/trails/acme/backend/matrix-1');
    expect(trail.status).to.equal(200);
    expect(trail.body.attestations).to.deep.equal([]);
    expect(trail.body.is_compliant).to.equal(false); // the template's 'unit' attestation is still missing
  });

  it('names a bad input', async () => {
    const run = await runAction('push', { 'TEST-a.xml': passingXml }, { 'artifact-fingerprint': 'not-a-sha' });
    expect(run.status).to.equal(1);
    expect(run.stdout).to.contain("::error::Input 'artifact-fingerprint' must be a SHA-256 digest");
    expect(run.summary).to.contain("**Failed:** Input 'artifact-fingerprint' must be a SHA-256 digest");
    const template = await runAction('push', { 'TEST-a.xml': passingXml }, { 'template-file': '.trailproof/missing.yml' });
    expect(template.status).to.equal(1);
    expect(template.stdout).to.contain("::error::Input 'template-file' names no file: '.trailproof/missing.yml'");
  });

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

  it('a pull request from a fork (no token): with on-missing-token warn, annotated and summarised, nothing attested, the step fails on the tests alone', async () => {
    const denied = await runAction('pull_request', { 'reports/junit.xml': failingXml }, { 'api-token': '' });
    expect(denied.status).to.equal(1);
    expect(denied.stdout).to.contain("::error::Input 'api-token' is required");
    const inputs = { 'api-token': '', 'on-missing-token': 'warn', 'server-url': '', org: '', flow: '' };
    const fork = await runAction('pull_request', { 'reports/junit.xml': failingXml, 'vat.ts': '' }, inputs);
    expect(fork.status).to.equal(1);
    expect(fork.stdout).to.contain('::warning::Nothing attested: api-token is empty (a pull request from a fork gets no secrets) and on-missing-token is warn');
    expect(commands(fork.stdout, 'error')).to.deep.equal([
      '::error::1 test(s) failed and 0 errored (of 2); nothing attested',
      '::error title=vat.ReverseChargeTest › b2b within EU,file=vat.ts,line=42::expected 0.00 but was 19.00%0AAssertionError at vat.ts:42',
    ]);
    expect(fork.outputs).to.include({ 'trail-url': '', total: '2', failed: '1', compliant: 'false' });
    expect(fork.summary).to.contain('**Nothing attested:** api-token is empty').and.contain('❌ 1 failed, 0 errored');
    const passing = await runAction('pull_request', { 'TEST-rounding.xml': passingXml }, inputs);
    expect(passing.status, passing.stdout).to.equal(0);
    expect(passing.outputs).to.include({ total: '3', compliant: 'true' });
  });

  it('a refused token on 2-8 MB uploads: the server\'s 401 at once, never "failed after 4 attempts: EPIPE"', async () => {
    // The server answers 401 before reading the body and closes the connection under the upload.
    const retries: string[] = [];
    const client = createClient({ serverUrl: server.url, apiToken: 'tp_expired', backoffMs: 1, onRetry: (m) => retries.push(m) });
    for (let i = 0; i < 8; i++) {
      const form = new FormData();
      form.append('data_json', JSON.stringify({ attestation_name: 'junit', junit_results: [] }));
      form.append('attachment_file', new Blob([Buffer.alloc((2 + (i % 4) * 2) * 1024 * 1024, 'x')]), 'junit.xml');
      const error = await client.request('POST', '/attestations/acme/backend/trail/t/junit', form).catch((e: unknown) => e);
      expect(error, String(error)).to.be.instanceOf(ApiRequestError);
      expect((error as ApiRequestError).status).to.equal(401);
      expect((error as Error).message).to.match(/^POST \/attestations\/acme\/backend\/trail\/t\/junit answered 401: Authentication required/);
    }
    expect(retries).to.deep.equal([]);
  });

  it("workflow_run (a fork's results attested from the base repository): the trail is the fork's head commit", async () => {
    const run = await runAction('workflow_run', { 'test-results/junit.xml': failingXml }, { 'junit-paths': 'test-results', annotations: '0' });
    expect(run.status).to.equal(1);
    const sha: string = run.payload.workflow_run.head_sha;
    expect(run.outputs).to.include({ 'trail-url': `${server.url}/ui/acme/flows/backend/trails/${sha}`, failed: '1' });
    expect(commands(run.stdout, 'error')).to.have.length(1);
    const trail = await call(server.url, token, 'GET', `/api/v2/trails/acme/backend/${sha}`);
    expect(withoutNulls(trail.body.git_commit_info)).to.deep.equal({
      sha1: sha,
      branch: 'fix-vat-typo',
      message: 'Fix a typo in the VAT rates',
      author: 'Eve Fork <eve@fork.example>',
      timestamp: Date.parse('2026-11-22T08:00:00Z') / 1000,
      url: `https://github.com/acme/backend/commit/${sha}`,
    });
    expect(trail.body.attestations[0]).to.include({ attestation_name: 'junit', is_compliant: false });
  });

  it('the bundle is light: no Octokit, no undici', () => {
    // 1,340,456 bytes with @actions/github (Octokit) and @actions/core's OIDC client (undici).
    expect(statSync(bundle).size).to.be.below(400_000);
    expect(statSync(cliBundle).size).to.be.below(400_000);
  });

  it('takes only plain data from the contract (limits, patterns, paths): no TypeBox, no Ajv', () => {
    for (const file of [bundle, cliBundle])
      expect(readFileSync(file, 'utf8'))
        .to.include('../schema/src/limits.ts')
        .and.not.match(/typebox|[/+]ajv@/i);
  });

  it('runs the same flow outside GitHub as trailproof-junit with TRAILPROOF_* variables', async () => {
    const root = mkdtempSync(join(tmpdir(), 'trailproof-cli-'));
    dirs.push(root);
    writeFileSync(join(root, 'TEST-rounding.xml'), passingXml);
    const result = await runProcess(
      process.execPath,
      [cliBundle, '--org', 'acme', '--flow', 'backend', '--trail', 'jenkins-55', '--summary', join(root, 's.md')],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          TRAILPROOF_SERVER_URL: server.url,
          TRAILPROOF_API_TOKEN: token,
          TRAILPROOF_REPO_NAME: 'acme/backend',
          TRAILPROOF_ORIGIN_URL: 'https://jenkins.example.com/job/55',
        },
      },
    );
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.contain('3 tests: 2 passed, 0 failed, 0 errors, 1 skipped, 0 flaky');
    // No workflow commands outside GitHub Actions (@actions/glob writes ::debug:: lines).
    expect(result.stdout).to.not.match(/^::/m);
    expect(readFileSync(join(root, 's.md'), 'utf8')).to.contain('invoice.RoundingTest');
    const trail = await call(server.url, token, 'GET', '/api/v2/trails/acme/backend/jenkins-55');
    expect(trail.body.origin_url).to.equal('https://jenkins.example.com/job/55');
    expect(trail.body.attestations[0].junit_results[0]).to.include({ name: 'invoice.RoundingTest', total: 3, skipped: 1 });
  });

  it('trailproof-junit --help lists every flag with its variable and default; --version; an unknown flag shows the usage and exits 2', async () => {
    const env = { PATH: process.env.PATH };
    const help = await runProcess(process.execPath, [cliBundle, '--help'], { env });
    expect(help.status).to.equal(0);
    const inputs = [
      ...readFileSync(new URL('../action.yml', import.meta.url), 'utf8')
        .split('\noutputs:')[0]!
        .matchAll(/^ {2}([a-z-]+):$/gm),
    ]
      .map((m) => m[1]!)
      .filter((n) => n !== 'annotations');
    expect(inputs.length).to.be.above(15);
    for (const input of inputs) expect(help.stdout).to.match(new RegExp(`^  --${input} \\S+ +TRAILPROOF_${input.toUpperCase().replace(/-/g, '_')} +\\S`, 'm'));
    expect(help.stdout).to.match(/^ {2}--reruns separate\|merge +TRAILPROOF_RERUNS +separate$/m);
    const version = await runProcess(process.execPath, [cliBundle, '--version'], { env });
    expect(version.stdout).to.equal(
      `trailproof-junit ${JSON.parse(readFileSync(new URL('../packages/action/package.json', import.meta.url), 'utf8')).version}\n`,
    );
    const unknown = await runProcess(process.execPath, [cliBundle, '--sever-url', 'x'], { env });
    expect(unknown.status).to.equal(2);
    expect(unknown.stderr).to.contain("Unknown option '--sever-url'").and.contain('Usage: trailproof-junit');
  });
});

/** A repository with two commits by Grace at `root/origin`, cloned at depth 1 into `workspace`; returns the head's SHA. */
function checkout(root: string, workspace: string): string {
  const origin = join(root, 'origin');
  const identity = {
    GIT_AUTHOR_NAME: 'Grace Hopper',
    GIT_AUTHOR_EMAIL: 'grace@acme.example',
    GIT_COMMITTER_NAME: 'Grace Hopper',
    GIT_COMMITTER_EMAIL: 'grace@acme.example',
  };
  const git = (cwd: string, args: string[], date = '2026-11-21T16:30:00Z') =>
    execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...identity, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } }).trim();
  git(root, ['init', '-q', origin]);
  writeFileSync(join(origin, 'vat.ts'), 'export const rate = 0.19;\n');
  git(origin, ['add', '.']);
  git(origin, ['commit', '-q', '-m', 'VAT rates'], '2026-11-18T10:00:00Z');
  writeFileSync(join(origin, 'vat.ts'), 'export const rate = 0.19;\nexport const reverseCharge = true;\n');
  git(origin, ['commit', '-q', '-a', '-m', 'Add VAT reverse charge\n\nFor B2B invoices.']);
  git(root, ['clone', '-q', '--depth', '1', `file://${origin}`, workspace]);
  return git(workspace, ['rev-parse', 'HEAD']);
}

/** The object without its null fields (the API answers absent optional fields as null). */
function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
}

/** Parses GITHUB_OUTPUT's `name<<delimiter` blocks. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!match) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== match[2]; i++) value.push(lines[i]!);
    out[match[1]!] = value.join('\n');
  }
  return out;
}
