// @database
/** How the action fails: an HTTP error, a refused token, corrupt or missing reports, a bad input, and a fork's pull request without a token. */
import { expect } from 'chai';
import { ApiRequestError, createClient } from '@trailproof/action';
import { call, type ServerProcess } from './support/processes.ts';
import { actionFixture, commands, failingXml, passingXml } from './support/action-run.ts';

describe('the GitHub Action, run as the runner runs it', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let token = '';
  const { runAction } = actionFixture((started) => ({ server, token } = started));

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
});
